package fleet

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"benchtop/internal/infile"
	"benchtop/internal/keyfile"
)

// TokenEnv is the environment variable that may hold the shared token.
const TokenEnv = "BENCHTOP_TOKEN"

// MinTokenLen is the shortest token accepted, in bytes.
const MinTokenLen = 16

// LoadToken reads the shared token from file (when given) or from
// BENCHTOP_TOKEN; "" when neither is set. A token never comes from the
// command line, where other users of the machine could read it.
func LoadToken(file string) (string, error) {
	var tok, from string
	if file != "" {
		if err := keyfile.Secret("--token-file", file); err != nil {
			return "", err
		}
		b, err := infile.ReadFile(file)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return "", fmt.Errorf("--token-file %s: %v", file, err)
		}
		tok, from = strings.TrimSpace(string(b)), "--token-file "+file
	} else if v, ok := os.LookupEnv(TokenEnv); ok {
		tok, from = strings.TrimSpace(v), TokenEnv
	} else {
		return "", nil
	}
	if len(tok) < MinTokenLen {
		return "", fmt.Errorf("%s: the token is %d bytes; at least %d are needed (e.g. openssl rand -hex 32)", from, len(tok), MinTokenLen)
	}
	return tok, nil
}

// nonce returns 32 random bytes.
func nonce() ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("fleet: random nonce: %w", err)
	}
	return b, nil
}

// mac is HMAC-SHA256(token, role | agentNonce | coordNonce): what proves a
// side holds the token without sending it.
func mac(token, role string, agentNonce, coordNonce []byte) []byte {
	h := hmac.New(sha256.New, []byte(token))
	h.Write([]byte(role))
	h.Write([]byte{0})
	h.Write(agentNonce)
	h.Write(coordNonce)
	return h.Sum(nil)
}

// checkMAC compares in constant time.
func checkMAC(token, role string, agentNonce, coordNonce, got []byte) bool {
	return hmac.Equal(mac(token, role, agentNonce, coordNonce), got)
}

// IsLoopback reports whether a listen address binds loopback only.
// "" host and ":port" bind every interface, so they are not loopback.
func IsLoopback(addr string) bool {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
