package core

import "github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

// Service is a service's state, under table.Service (a defined type over
// it): the aztables client of its management calls, the Conn of its data
// requests, its endpoint, and the shared key when it has one, which
// package sas signs with.
type Service struct {
	raw      *aztables.ServiceClient
	conn     *Conn
	endpoint string
	account  string
	key      string
}

// NewService returns a Service; account and key are empty unless the
// service signs with a shared key.
func NewService(raw *aztables.ServiceClient, conn *Conn, endpoint, account, key string) *Service {
	return &Service{raw: raw, conn: conn, endpoint: endpoint, account: account, key: key}
}

// Raw is the aztables client of the management calls.
func (s *Service) Raw() *aztables.ServiceClient { return s.raw }

// Conn is the data path's connection; nil for a zero Service.
func (s *Service) Conn() *Conn { return s.conn }

// Endpoint is the service URL without a trailing slash.
func (s *Service) Endpoint() string { return s.endpoint }

// SharedKey is the account name and key the service signs with; ok is
// false for a service made from a SAS or a token.
func (s *Service) SharedKey() (account, key string, ok bool) {
	return s.account, s.key, s.key != ""
}
