// Command withazurite starts Azurite in memory on a loopback port (a free
// one unless -port says which) and either runs a command with
// TABLEKIT_CONNECTION_STRING and TABLEKIT_AZURITE_ENDPOINT set to it, stops
// Azurite and exits with the command's status, or, without a command,
// serves in the foreground until interrupted, after printing what to set
// in another terminal (`make azurite`).
//
//	go run ./devtools/cmd/withazurite -- go test ./...
//	go run ./devtools/cmd/withazurite -port 10002
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/tablekit/tablekit/devtools/azurite"
)

func main() {
	port := flag.Int("port", 0, "the loopback port to serve on; 0 picks a free one")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: withazurite [-port N] [-- command [args...]]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *port < 0 || *port > 65535 {
		fmt.Fprintf(os.Stderr, "withazurite: -port %d: not a port (0 to 65535)\n", *port)
		os.Exit(2)
	}
	os.Exit(run(*port, flag.Args()))
}

func run(port int, args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := azurite.StartOn(ctx, port)
	if err != nil {
		fmt.Fprintln(os.Stderr, "withazurite:", err)
		return 1
	}
	defer srv.Stop()
	if len(args) == 0 {
		printSession(os.Stdout, srv)
		<-ctx.Done()
		fmt.Fprintln(os.Stderr, "withazurite: stopping Azurite")
		return 0
	}
	fmt.Fprintf(os.Stderr, "withazurite: Azurite table service on 127.0.0.1:%d\n", srv.Port)

	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(),
		"TABLEKIT_CONNECTION_STRING="+srv.ConnectionString(),
		"TABLEKIT_AZURITE_ENDPOINT="+srv.Endpoint(),
	)
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	default:
		fmt.Fprintln(os.Stderr, "withazurite:", err)
		return 1
	}
}

// printSession says where the emulator is and what to set to use it: the
// connection string holds Azurite's published development key, which
// protects nothing.
func printSession(w io.Writer, srv *azurite.Server) {
	fmt.Fprintf(w, `Azurite table service on %s, in memory: Ctrl-C stops it and drops its tables.
In another terminal:

  export TABLEKIT_CONNECTION_STRING='%s'
  export TABLEKIT_AZURITE_ENDPOINT=%s  # go test uses this emulator too

  go run ./cmd/tablekit create demo && go run ./cmd/tablekit tables
  go run ./examples/quickstart
`, srv.Endpoint(), srv.ConnectionString(), srv.Endpoint())
}
