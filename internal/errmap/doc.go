// Package errmap turns what azcore, aztables and the retry loop report into
// tablekit's error model (package tablekit): the one mapping every package
// uses, a reply broken in transit, and the constructors of bad-input errors.
package errmap
