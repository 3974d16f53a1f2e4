package sas

// Protocol is the set of protocols a SAS may be used over.
type Protocol string

// The two protocol settings the service knows. The zero value means
// HTTPSOnly: a token is a bearer secret and must not cross the network in
// clear. Use HTTPSAndHTTP only for a local emulator (Azurite serves http).
const (
	HTTPSOnly    Protocol = "https"
	HTTPSAndHTTP Protocol = "https,http"
)

// resolve applies the default and checks the value. It always returns an
// explicit protocol: a token without spr would allow http.
func (p Protocol) resolve() (Protocol, error) {
	switch p {
	case "":
		return HTTPSOnly, nil
	case HTTPSOnly, HTTPSAndHTTP:
		return p, nil
	}
	return "", invalid("Protocol", `must be "https" or "https,http"`)
}
