package table

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"
)

// isEmulatorAccount reports Azurite's development account with its
// published key. That key protects nothing, so plain http to it sends no
// secret in clear, wherever the emulator runs.
func isEmulatorAccount(account, key string) bool {
	return account == devAccount && key == devKey
}

// checkKeyedScheme is checkScheme for a shared-key endpoint: the emulator's
// well-known account may use http on any host (a container named azurite,
// a machine on the LAN); every other account keeps the https rule.
func checkKeyedScheme(endpoint, account, key string, o *Options) error {
	if isEmulatorAccount(account, key) {
		if u, err := url.Parse(endpoint); err == nil && u.Scheme == "http" && u.Host != "" {
			return nil
		}
	}
	return checkScheme(endpoint, o)
}

// startEmulator is how the hint tells a user to get an emulator on a port.
const startEmulator = "start one with `npx azurite-table` (or `make demo` in tablekit's repository, " +
	"or `docker run -p 10002:10002 mcr.microsoft.com/azure-storage/azurite azurite-table --tableHost 0.0.0.0`)"

// emulatorHint adds what to do when a loopback endpoint refuses the
// connection: that is nearly always an emulator that is not running, and
// "connection refused" alone does not say so. Other errors are unchanged.
func emulatorHint(err error) error {
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "dial" || oe.Addr == nil || !errors.Is(err, syscall.ECONNREFUSED) {
		return err
	}
	host, _, splitErr := net.SplitHostPort(oe.Addr.String())
	if splitErr != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return err
	}
	return fmt.Errorf("%w; no emulator is listening on %s: %s", err, oe.Addr, startEmulator)
}
