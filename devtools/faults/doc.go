// Package faults is a fault- and latency-injecting HTTP reverse proxy for
// tests and benchmarks. It listens on 127.0.0.1 only, forwards every request
// to a target such as Azurite with the path unchanged, and, by rule or by
// probability, answers with an Azure error instead, resets the connection
// before forwarding, forwards and then resets the connection (the service
// committed, the client never hears of it), forwards and then cuts the
// reply short or garbles its body (all of it, or its middle third),
// changes the continuation of a query page (backwards, not past its last entity, unparseable, dropped, an
// empty page; see [GarbleContinuation]), or adds latency.
//
//	px, err := faults.Start("http://127.0.0.1:10002")
//	defer px.Close()
//	px.SetRules(faults.Rule{
//		Match: faults.Method(http.MethodPut, http.MethodPatch),
//		Times: 2,
//		Fault: faults.Status(http.StatusServiceUnavailable, "ServerBusy", nil),
//	})
//	client, err := aztables.NewClientWithSharedKey(px.Endpoint("devstoreaccount1")+"/mytable", cred, opts)
//
// [Proxy.SetCapacity] plays a busy account: a token bucket of R entities a
// second (transactions counted by their operations, optionally a bucket
// per partition) answers 503 ServerBusy beyond it, and [Proxy.Arrivals]
// says what arrived when, so tests can check a client's rate over windows.
//
// The proxy counts requests per method and path ([Proxy.Count]), faults
// injected ([Proxy.Injected]) and TCP connections accepted from clients
// ([Proxy.Conns]), so tests can assert attempt counts and connection reuse.
// Random choices come from a seeded generator ([Proxy.SetSeed]): a run with
// the same seed and the same sequence of requests injects the same faults.
//
// The proxy serves many concurrent requests (its upstream transport keeps up
// to 256 idle connections per host) and is bounded: after [Proxy.Close]
// returns, none of its goroutines is still running a request.
package faults
