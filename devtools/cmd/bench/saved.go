package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// savedRun is a run's results as make bench saves them beside its charts
// (results.json), so that the charts can be drawn again, from the same
// samples, without measuring again: -charts-from.
type savedRun struct {
	Version  int
	Env      savedEnv
	Config   savedConfig
	Samples  map[string][]savedSample // by scenario key, in round order
	Overhead map[string][]savedObs    // by client-overhead benchmark name
}

// savedVersion is the format of savedRun; a file of another is refused.
const savedVersion = 1

type savedEnv struct {
	Date                         time.Time
	Command, GoVersion, Platform string
	Cores, MaxProcs              int
	CPUModel, Memory             string
	Azurite, Node                string
	Aztables, Azcore             string
	LoadStart, LoadEnd           string
	Duration                     time.Duration
}

// savedConfig is the part of config that labels the results: the sizes and
// the latencies of the scenarios.
type savedConfig struct {
	Quick                          bool
	Rounds                         int
	Entities                       int
	ParWorkers, TxnOps, TxnWorkers int
	Latency, LatencyHigh           time.Duration
	ScanParallel                   int
	CapBulk, CapSegments           int
	OverheadRounds                 int
}

type savedSample struct {
	N                  int
	Wall, CPU, Srv, JS time.Duration
	Bytes, Body        int64
	Conns, Reqs        int
	Sys                float64
	HeapPeak, HeapBase int64
	RSS                int64
}

type savedObs struct {
	CPUNs, WallNs, Allocs, Bytes float64
	Runs                         int
}

// save writes the run to path as indented JSON.
func (b *bench) save(path string, env *envInfo, over map[string][]overheadObs) error {
	cfg := b.cfg
	s := savedRun{
		Version: savedVersion,
		Env: savedEnv{
			Date: env.date, Command: env.command, GoVersion: env.goVersion, Platform: env.platform,
			Cores: env.cores, MaxProcs: env.maxProcs, CPUModel: env.cpuModel, Memory: env.memory,
			Azurite: env.azurite, Node: env.node, Aztables: env.aztables, Azcore: env.azcore,
			LoadStart: env.loadStart, LoadEnd: env.loadEnd, Duration: env.duration,
		},
		Config: savedConfig{
			Quick: cfg.quick, Rounds: cfg.rounds, Entities: cfg.entities,
			ParWorkers: cfg.parWorkers, TxnOps: cfg.txnOps, TxnWorkers: cfg.txnWorkers,
			Latency: cfg.latency, LatencyHigh: cfg.latencyHigh, ScanParallel: cfg.scanParallel,
			CapBulk: cfg.capBulk, CapSegments: cfg.capSegments, OverheadRounds: cfg.overheadRounds,
		},
		Samples:  map[string][]savedSample{},
		Overhead: map[string][]savedObs{},
	}
	for k, ss := range b.res {
		for _, x := range ss {
			s.Samples[k] = append(s.Samples[k], savedSample{
				N: x.n, Wall: x.wall, CPU: x.cpu, Srv: x.srv, JS: x.js, Bytes: x.bytes, Body: x.body,
				Conns: x.conns, Reqs: x.reqs, Sys: x.sys, HeapPeak: x.heapPeak, HeapBase: x.heapBase, RSS: x.rss,
			})
		}
	}
	for k, obs := range over {
		for _, o := range obs {
			s.Overhead[k] = append(s.Overhead[k], savedObs{CPUNs: o.cpuNs, WallNs: o.wallNs, Allocs: o.allocs, Bytes: o.bytes, Runs: o.runs})
		}
	}
	data, err := json.MarshalIndent(&s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// loadRun reads a run saved by save: the samples as a bench (its config
// holds what labels them), the environment and the client-overhead results.
func loadRun(path string) (*bench, *envInfo, map[string][]overheadObs, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	var s savedRun
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Version != savedVersion {
		return nil, nil, nil, fmt.Errorf("%s: results of format %d, want %d", path, s.Version, savedVersion)
	}
	e, c := s.Env, s.Config
	env := &envInfo{
		date: e.Date, command: e.Command, goVersion: e.GoVersion, platform: e.Platform,
		cores: e.Cores, maxProcs: e.MaxProcs, cpuModel: e.CPUModel, memory: e.Memory,
		azurite: e.Azurite, node: e.Node, aztables: e.Aztables, azcore: e.Azcore,
		loadStart: e.LoadStart, loadEnd: e.LoadEnd, duration: e.Duration,
	}
	cfg := fullConfig()
	cfg.quick, cfg.rounds, cfg.entities = c.Quick, c.Rounds, c.Entities
	cfg.parWorkers, cfg.txnOps, cfg.txnWorkers = c.ParWorkers, c.TxnOps, c.TxnWorkers
	cfg.latency, cfg.latencyHigh, cfg.scanParallel = c.Latency, c.LatencyHigh, c.ScanParallel
	cfg.capBulk, cfg.capSegments, cfg.overheadRounds = c.CapBulk, c.CapSegments, c.OverheadRounds
	b := &bench{cfg: cfg, res: map[string][]sample{}, cores: e.Cores}
	for k, ss := range s.Samples {
		for _, x := range ss {
			b.res[k] = append(b.res[k], sample{
				n: x.N, wall: x.Wall, cpu: x.CPU, srv: x.Srv, js: x.JS, bytes: x.Bytes, body: x.Body,
				conns: x.Conns, reqs: x.Reqs, sys: x.Sys, heapPeak: x.HeapPeak, heapBase: x.HeapBase, rss: x.RSS,
			})
		}
	}
	over := map[string][]overheadObs{}
	for k, obs := range s.Overhead {
		for _, o := range obs {
			over[k] = append(over[k], overheadObs{cpuNs: o.CPUNs, wallNs: o.WallNs, allocs: o.Allocs, bytes: o.Bytes, runs: o.Runs})
		}
	}
	return b, env, over, nil
}
