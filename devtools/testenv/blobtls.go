package testenv

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit/devtools/azurite"
)

// BlobTLSEnv is Azurite's blob service over https with a self-signed
// certificate and OAuth in basic mode, for token credentials (Azurite
// takes bearer tokens over https only).
type BlobTLSEnv struct {
	// Endpoint is the service URL, https://127.0.0.1:PORT/devstoreaccount1.
	Endpoint string
	// Client trusts the emulator's certificate: put it in azcore's
	// ClientOptions.Transport.
	Client *http.Client
}

var (
	blobTLSOnce    sync.Once
	blobTLSEnv     *BlobTLSEnv
	blobTLSErr     error
	blobTLSStarted *azurite.Server
	blobTLSDir     string // the certificate and key files
)

// AzuriteBlobTLS returns the https blob service, started once per test
// binary on a free 127.0.0.1 port and stopped by Run. It fails or skips
// as Azurite does.
func AzuriteBlobTLS(tb testing.TB) *BlobTLSEnv {
	tb.Helper()
	blobTLSOnce.Do(func() { blobTLSEnv, blobTLSErr = setupBlobTLS() })
	if blobTLSErr != nil {
		if Required() {
			tb.Fatalf("Azurite's https blob service is required (TABLEKIT_REQUIRE_AZURITE=1) but unavailable: %v", blobTLSErr)
		}
		tb.Skipf("%s (TABLEKIT_REQUIRE_AZURITE=1 fails instead)", unavailable(blobTLSErr))
	}
	return blobTLSEnv
}

func setupBlobTLS() (*BlobTLSEnv, error) {
	dir, err := os.MkdirTemp("", "tablekit-azurite-tls-")
	if err != nil {
		return nil, err
	}
	blobTLSDir = dir
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	roots, err := selfSigned(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := azurite.StartBlobTLS(ctx, certFile, keyFile, roots)
	if err != nil {
		return nil, err
	}
	blobTLSStarted = s
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: roots}
	return &BlobTLSEnv{Endpoint: s.Endpoint(), Client: &http.Client{Transport: tr}}, nil
}

// selfSigned writes a certificate for 127.0.0.1, valid for a day, and its
// key, and returns a pool that trusts it.
func selfSigned(certFile, keyFile string) (*x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	return roots, nil
}

// StaticToken is an azcore.TokenCredential that returns one fixed bearer
// token: an unsigned JWT for the storage audience, issued by Entra ID's
// issuer, valid for an hour from when it is made, as Azurite's basic
// OAuth accepts. Audience "" is storage's; another makes a token the
// emulator refuses.
type StaticToken struct{ Audience string }

// GetToken returns the token.
func (s StaticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	aud := s.Audience
	if aud == "" {
		aud = "https://storage.azure.com"
	}
	now := time.Now()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	claims := map[string]any{
		"aud": aud, "iss": "https://sts.windows.net/ab1f708d-50f6-404c-a006-d71b2ac7a606/",
		"iat": now.Unix(), "nbf": now.Add(-time.Minute).Unix(), "exp": now.Add(time.Hour).Unix(),
		"oid": "23657296-5cd5-45b0-a809-d972a7f4dfe1", "tid": "dd0d0df1-06c3-436c-8034-4b9a153097ce",
	}
	tok := enc(map[string]string{"alg": "HS256", "typ": "JWT"}) + "." + enc(claims) + ".c2ln"
	return azcore.AccessToken{Token: tok, ExpiresOn: now.Add(time.Hour)}, nil
}
