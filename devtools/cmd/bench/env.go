package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/tablekit/tablekit/devtools/azurite"
)

// envInfo describes the machine and the software of a run.
type envInfo struct {
	date      time.Time
	command   string
	goVersion string
	platform  string
	cores     int
	maxProcs  int
	cpuModel  string
	memory    string
	azurite   string
	node      string
	aztables  string
	azcore    string
	loadStart string
	loadEnd   string
	duration  time.Duration
}

func collectEnv(cfg config) *envInfo {
	e := &envInfo{
		date:      time.Now().UTC(),
		command:   commandLine(),
		goVersion: runtime.Version(),
		platform:  runtime.GOOS + "/" + runtime.GOARCH,
		cores:     runtime.NumCPU(),
		maxProcs:  runtime.GOMAXPROCS(0),
		cpuModel:  cpuModel(),
		memory:    memTotal(),
		azurite:   azuriteVersion(),
		node:      nodeVersion(),
		loadStart: loadAvg(),
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/Azure/azure-sdk-for-go/sdk/data/aztables":
				e.aztables = d.Version
			case "github.com/Azure/azure-sdk-for-go/sdk/azcore":
				e.azcore = d.Version
			}
		}
	}
	return e
}

func (e *envInfo) finish(d time.Duration) {
	e.duration = d
	e.loadEnd = loadAvg()
}

// commandLine is how this run was started, as a user would type it.
func commandLine() string {
	args := os.Args[1:]
	if strings.HasSuffix(os.Args[0], ".test") {
		return "go test ./devtools/cmd/bench (quick mode)"
	}
	return strings.TrimSpace("go run ./devtools/cmd/bench " + strings.Join(args, " "))
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				var kb float64
				for _, c := range f[0] {
					kb = kb*10 + float64(c-'0')
				}
				return fmtNum(kb/1024/1024) + " GiB"
			}
		}
	}
	return "unknown"
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// azuriteVersion reads the version of the installed azurite npm package.
func azuriteVersion() string {
	bin, err := azurite.FindBinary()
	if err != nil {
		return "unknown"
	}
	pkg := filepath.Join(filepath.Dir(filepath.Dir(bin)), "azurite", "package.json")
	b, err := os.ReadFile(pkg)
	if err != nil {
		return "unknown"
	}
	var p struct{ Version string }
	if json.Unmarshal(b, &p) != nil || p.Version == "" {
		return "unknown"
	}
	return p.Version
}

func nodeVersion() string {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
