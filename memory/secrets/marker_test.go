package secrets

import "testing"

// kinds is every kind Find names: the providers' and the fixed ones of the
// key blocks and the credential positions.
func kinds() []string {
	out := []string{"private key", "password", "credential", "bearer token", "basic credentials"}
	for _, p := range providers() {
		out = append(out, p.kind)
	}
	return out
}

// Every marker is left alone by a second Redact, even where its kind's last
// word reads as a key before an assignment ("[secret: password] = x"): the
// check reads markerOpen back within markerMost bytes, which must hold the
// longest marker.
func TestEveryMarkerFitsMarkerMost(t *testing.T) {
	const value = "Zq8xW3rT9vLp2NcKa7Yd"
	for _, k := range kinds() {
		if n := len(Marker(k)); n > markerMost {
			t.Errorf("%s is %d bytes, more than markerMost (%d)", Marker(k), n, markerMost)
		}
		for _, s := range []string{Marker(k) + " = " + value, "api_key: " + Marker(k), `{"password": "` + Marker(k) + `"}`} {
			if got, found := Redact(s); got != s {
				t.Errorf("Redact(%q) = %q (%v): a marker was read as a secret or a key", s, got, found)
			}
		}
	}
}
