package adapters

import "strings"

// MaskProperties returns a copy of props fit for reports, screens and logs:
// the values of keys that name a secret (password, secret, token,
// credential) become "****", and the values of keys that hold an address
// (url, endpoint, addr) go through MaskURL. props is not changed.
func MaskProperties(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for k, v := range props {
		out[k] = maskProperty(k, v)
	}
	return out
}

func maskProperty(key, value string) string {
	lk := strings.ToLower(key)
	for _, s := range []string{"password", "secret", "token", "credential"} {
		if strings.Contains(lk, s) {
			return "****"
		}
	}
	for _, s := range []string{"url", "endpoint", "addr"} {
		if strings.Contains(lk, s) {
			return MaskURL(value)
		}
	}
	return value
}
