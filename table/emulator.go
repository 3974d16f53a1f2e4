package table

import (
	"net/url"
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
