package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/table"
)

// plainClient is what plain aztables code builds: a shared-key client for
// the table with default options, so azcore's default transport (shared by
// every such client in the process) and azcore's retry. tr replaces only
// the transport, for counting.
func plainClient(endpoint, name string, tr policy.Transporter) (*aztables.Client, error) {
	cred, err := aztables.NewSharedKeyCredential(azurite.Account, azurite.Key)
	if err != nil {
		return nil, err
	}
	var opts *aztables.ClientOptions
	if tr != nil {
		opts = &aztables.ClientOptions{}
		opts.Transport = tr
	}
	return aztables.NewClientWithSharedKey(endpoint+"/"+name, cred, opts)
}

// tkService is a tablekit service with the given options (nil: defaults,
// the tuned transport and tablekit's retry policy).
func tkService(endpoint string, o *table.Options) (*table.Service, error) {
	return table.NewServiceWithSharedKey(endpoint, azurite.Account, azurite.Key, o)
}

// tkTable opens the typed benchmark table on endpoint.
func tkTable(endpoint, name string, o *table.Options) (*table.Table[workload.Item], error) {
	svc, err := tkService(endpoint, o)
	if err != nil {
		return nil, err
	}
	return table.New[workload.Item](svc, name)
}

// wire counts what crosses the TCP connections of a transport: connections
// dialled and bytes read (status line, headers and body) and written.
type wire struct {
	dials       atomic.Int64
	read, wrote atomic.Int64
	bodyBytes   atomic.Int64
	responses   atomic.Int64
}

// transport returns base (cloned) with its dialer wrapped to count, as a
// policy.Transporter that also counts response body bytes.
func (w *wire) transport(base *http.Transport) policy.Transporter {
	tr := base.Clone()
	dial := tr.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		w.dials.Add(1)
		return &countConn{Conn: c, w: w}, nil
	}
	return &countBody{next: &http.Client{Transport: tr}, w: w}
}

func (w *wire) reset() {
	w.dials.Store(0)
	w.read.Store(0)
	w.wrote.Store(0)
	w.bodyBytes.Store(0)
	w.responses.Store(0)
}

type countConn struct {
	net.Conn
	w *wire
}

func (c *countConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.w.read.Add(int64(n))
	return n, err
}

func (c *countConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.w.wrote.Add(int64(n))
	return n, err
}

type countBody struct {
	next *http.Client
	w    *wire
}

func (t *countBody) Do(req *http.Request) (*http.Response, error) {
	resp, err := t.next.Do(req)
	if err != nil {
		return nil, err
	}
	t.w.responses.Add(1)
	resp.Body = &countReader{ReadCloser: resp.Body, w: t.w}
	return resp, nil
}

type countReader struct {
	io.ReadCloser
	w *wire
}

func (r *countReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.w.bodyBytes.Add(int64(n))
	return n, err
}

// tunedTransport is tablekit's tuned *http.Transport, for wrapping.
func tunedTransport() (*http.Transport, error) {
	hc, ok := table.ClientOptions(nil).Transport.(*http.Client)
	if !ok {
		return nil, fmt.Errorf("table.ClientOptions no longer installs an *http.Client")
	}
	tr, ok := hc.Transport.(*http.Transport)
	if !ok {
		return nil, fmt.Errorf("table.ClientOptions' client no longer has an *http.Transport")
	}
	return tr, nil
}
