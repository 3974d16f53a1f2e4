// Package sharedkey holds a storage account's name and shared key and signs
// with it: the Shared Key Lite Authorization of every request tablekit
// sends with a key (the scheme aztables' SharedKeyCredential uses for the
// Table service), and the HMAC of a SAS (package sas). Both sign with the
// same key type, so the key is decoded, kept and hidden in one place.
//
// A Key never prints its key: String, GoString and every fmt verb show the
// account and "REDACTED", and the decoded bytes sit behind a pointer so that
// fmt printing a Key by reflection shows only an address.
package sharedkey
