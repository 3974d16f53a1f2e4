// Command withazurite starts Azurite in memory on a free loopback port, runs
// the given command with TABLEKIT_CONNECTION_STRING and TABLEKIT_AZURITE_ENDPOINT
// set to it, stops Azurite, and exits with the command's status.
//
//	go run ./devtools/cmd/withazurite -- go test ./...
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/tablekit/tablekit/devtools/azurite"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: withazurite -- command [args...]")
		os.Exit(2)
	}
	os.Exit(run(args))
}

func run(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := azurite.Start(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "withazurite:", err)
		return 1
	}
	defer srv.Stop()
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
