package wire

// DateTimeLayout is how Edm.DateTime values are written, Timestamp among
// them: UTC with seven fractional digits, the service's 100 ns resolution.
const DateTimeLayout = "2006-01-02T15:04:05.0000000Z"
