package cli

import (
	"strings"

	"benchtop/adapters"
)

// maskArgs returns the command line with its secrets masked, for the
// run metadata: -p values as safeProps masks them (passwords, tokens and
// credentials hidden, URLs with their password masked), and the value of
// any flag whose name says it is a secret; any other URL with its
// password masked.
func maskArgs(args []string) []string {
	out := append([]string(nil), args...)
	for i := 0; i < len(out); i++ {
		a := out[i]
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "-") || name == "" {
			if strings.Contains(a, "://") {
				out[i] = adapters.MaskURL(a)
			}
			continue
		}
		flag, val, inline := strings.Cut(name, "=")
		switch {
		case flag == "p":
			if inline {
				out[i] = a[:len(a)-len(val)] + maskKV(val)
			} else if i+1 < len(out) {
				i++
				out[i] = maskKV(out[i])
			}
		case secretName(flag):
			if inline {
				out[i] = a[:len(a)-len(val)] + "****"
			} else if i+1 < len(out) {
				i++
				out[i] = "****"
			}
		}
	}
	return out
}

// maskKV masks the value of one -p key=value.
func maskKV(kv string) string {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return kv
	}
	return k + "=" + adapters.MaskProperties(map[string]string{k: v})[k]
}

func secretName(flag string) bool {
	f := strings.ToLower(flag)
	return strings.Contains(f, "password") || strings.Contains(f, "secret") || strings.Contains(f, "token") || strings.Contains(f, "credential")
}
