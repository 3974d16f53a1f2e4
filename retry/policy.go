package retry

import "time"

// Policy says when to retry and how long to wait in between. Every zero
// field means its default, so Policy{} behaves like [Default]. Neither [Do]
// nor [NewPipelinePolicy] ever modifies a Policy.
type Policy struct {
	// InitialInterval is the base delay before the first retry; later retries
	// multiply it by Multiplier. Zero or negative means 500ms.
	InitialInterval time.Duration

	// Multiplier grows the base delay from one retry to the next. Zero means
	// 2; values below 1 are treated as 1 (a constant delay).
	Multiplier float64

	// MaxInterval caps every single delay, including the jittered delay and a
	// server's Retry-After (a server asking for more is retried after
	// MaxInterval). Zero or negative means 30s.
	MaxInterval time.Duration

	// Jitter is the randomization factor: each delay is drawn from
	// [base*(1-Jitter), base*(1+Jitter)] so that many clients that failed
	// together do not retry together. Zero means 0.2; negative means no jitter.
	Jitter float64

	// MaxAttempts is the total number of attempts, the first one included.
	// Zero or negative means 5; 1 means no retry.
	MaxAttempts int

	// MaxElapsed bounds the whole call: a retry whose delay would end after
	// MaxElapsed (counted from the first attempt) is not made. Zero or
	// negative means 2m.
	MaxElapsed time.Duration

	// Classify reports whether an error is worth another attempt. For an HTTP
	// response it receives the *azcore.ResponseError built from it. Nil means
	// [IsRetryable].
	Classify func(err error) bool

	// OnRetry, when set, is called before every retry with what failed and
	// how long the policy is about to wait. It may be called from many
	// goroutines at once and must not block.
	OnRetry func(Event)
}

// The documented defaults of [Policy].
const (
	defaultInitialInterval = 500 * time.Millisecond
	defaultMultiplier      = 2
	defaultMaxInterval     = 30 * time.Second
	defaultJitter          = 0.2
	defaultMaxAttempts     = 5
	defaultMaxElapsed      = 2 * time.Minute
)

// Default returns the default policy with every field spelled out: 5
// attempts, waits of about 0.5s, 1s, 2s and 4s (±20%). It is what a nil
// *Policy or a zero Policy means; start from it to change a field.
func Default() Policy {
	return Policy{
		InitialInterval: defaultInitialInterval,
		Multiplier:      defaultMultiplier,
		MaxInterval:     defaultMaxInterval,
		Jitter:          defaultJitter,
		MaxAttempts:     defaultMaxAttempts,
		MaxElapsed:      defaultMaxElapsed,
	}
}

// Checklist returns the Table Storage performance checklist's example
// schedule: waits of about 2s, 5s, 12.5s and 30s (±20%), five attempts. Use
// it for background work that prefers finishing late to failing.
func Checklist() Policy {
	return Policy{
		InitialInterval: 2 * time.Second,
		Multiplier:      2.5,
		MaxInterval:     30 * time.Second,
		Jitter:          defaultJitter,
		MaxAttempts:     5,
		MaxElapsed:      2 * time.Minute,
	}
}

// resolve returns a copy of p (nil = Default) with every default filled in.
func resolve(p *Policy) Policy {
	var r Policy
	if p != nil {
		r = *p
	}
	if r.InitialInterval <= 0 {
		r.InitialInterval = defaultInitialInterval
	}
	switch {
	case r.Multiplier == 0:
		r.Multiplier = defaultMultiplier
	case r.Multiplier < 1:
		r.Multiplier = 1
	}
	if r.MaxInterval <= 0 {
		r.MaxInterval = defaultMaxInterval
	}
	switch {
	case r.Jitter == 0:
		r.Jitter = defaultJitter
	case r.Jitter < 0:
		r.Jitter = 0
	case r.Jitter > 1:
		r.Jitter = 1
	}
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = defaultMaxAttempts
	}
	if r.MaxElapsed <= 0 {
		r.MaxElapsed = defaultMaxElapsed
	}
	if r.Classify == nil {
		r.Classify = IsRetryable
	}
	return r
}
