package secrets

import (
	"hash/crc32"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// provider is one provider's token shape. Every match holds one of the
// lowercase literals in hint, checked first so that text without them costs
// a scan each; group is the submatch that is the token (0: the whole
// match); check, when set, is what the shape alone cannot say (a checksum,
// a generated-looking body).
type provider struct {
	kind  string
	hint  []string
	re    *regexp.Regexp
	group int
	check func(tok string) bool
}

// providers, most specific first: an Anthropic key also starts like an
// OpenAI one, and an earlier finding wins where two overlap. Compiled on
// first use, not at program start: every command imports this package
// through memory, few of them write memory.
var providers = sync.OnceValue(func() []provider {
	re := regexp.MustCompile
	return []provider{
		// AKIA: a long-term key, ASIA: a session's. AIDA, AROA… name users
		// and roles, no secret.
		{kind: "aws access key", hint: []string{"akia", "asia"}, re: re(`(?:AKIA|ASIA)[0-9A-Z]{16}`), check: randomBody(4, 2.5)},
		// GitHub's classic tokens end in a CRC32 of the 30 characters before
		// it, base62: a look-alike ("ghp_" and 36 letters in a doc) fails it.
		{kind: "github token", hint: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, re: re(`gh[pousr]_[A-Za-z0-9]{36}`), check: crcTail(4)},
		{kind: "github token", hint: []string{"github_pat_"}, re: re(`github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}`), check: randomBody(11, 3.5)},
		{kind: "gitlab token", hint: []string{"glpat-"}, re: re(`glpat-[A-Za-z0-9_-]{20,}`), check: randomBody(6, 3.0)},
		{kind: "anthropic key", hint: []string{"sk-ant-"}, re: re(`sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{20,}`), check: randomBody(7, 3.0)},
		// sk- also starts words ("sk-learn-compatible"): the body must mix
		// upper case, lower case and digits, as OpenAI's keys do.
		{kind: "openai key", hint: []string{"sk-"}, re: re(`sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`), check: mixedBody(true)},
		{kind: "slack token", hint: []string{"xox"}, re: re(`xox[abposre]-[0-9]{6,}-[0-9A-Za-z-]{8,}`), check: randomBody(5, 3.0)},
		{kind: "slack webhook", hint: []string{"hooks.slack.com/"}, re: re(`https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}`)},
		{kind: "discord webhook", hint: []string{"/api/webhooks/"}, re: re(`https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,68}`)},
		{kind: "google api key", hint: []string{"aiza"}, re: re(`AIza[0-9A-Za-z_-]{35}`), check: randomBody(4, 3.0)},
		{kind: "stripe key", hint: []string{"_live_", "_test_"}, re: re(`(?:sk_live|rk_live|pk_live|sk_test|rk_test)_[0-9A-Za-z]{16,}`), check: randomBody(8, 3.0)},
		{kind: "stripe webhook secret", hint: []string{"whsec_"}, re: re(`whsec_[A-Za-z0-9+/]{24,}={0,2}`), check: randomBody(6, 3.0)},
		// Letters and digits (gitleaks' shape); the body mixes cases.
		{kind: "hugging face token", hint: []string{"hf_"}, re: re(`hf_[A-Za-z0-9]{34}`), check: mixedBody(false)},
		// npm's tokens carry GitHub's checksum.
		{kind: "npm token", hint: []string{"npm_"}, re: re(`npm_[A-Za-z0-9]{36}`), check: crcTail(4)},
		{kind: "sendgrid key", hint: []string{"sg."}, re: re(`SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}`), check: randomBody(3, 3.0)},
		{kind: "digitalocean token", hint: []string{"_v1_"}, re: re(`do[opr]_v1_[a-f0-9]{64}`), check: randomBody(7, 3.0)},
		{kind: "shopify token", hint: []string{"shpat_", "shpca_", "shppa_", "shpss_"}, re: re(`shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`), check: randomBody(6, 3.0)},
		{kind: "age secret key", hint: []string{"age-secret-key-1"}, re: re(`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`), check: randomBody(16, 3.0)},
		// A bot's id, a colon, and 35 characters that start with AA; in a
		// URL it follows "bot" (api.telegram.org/bot123…:AA…/sendMessage).
		{kind: "telegram bot token", hint: []string{":aa"}, re: re(`(?:bot)?([0-9]{8,10}:AA[A-Za-z0-9_-]{33})`), group: 1, check: randomBody(11, 3.0)},
		{kind: "pypi token", hint: []string{"pypi-age"}, re: re(`pypi-AgE[A-Za-z0-9_-]{50,}`), check: randomBody(5, 3.0)},
		{kind: "docker hub token", hint: []string{"dckr_pat_"}, re: re(`dckr_pat_[A-Za-z0-9_-]{24,40}`), check: randomBody(9, 3.0)},
		{kind: "linear key", hint: []string{"lin_api_"}, re: re(`lin_api_[A-Za-z0-9]{40}`), check: randomBody(8, 3.0)},
		// A Twilio auth token is 32 hex digits, no prefix: caught where it
		// is named ("my twilio auth token is …"); TWILIO_AUTH_TOKEN=… is a
		// credential position.
		{kind: "twilio auth token", hint: []string{"twilio"}, re: re(`(?i)twilio[ _-]?auth[ _-]?token(?:[ \t]+is|[ \t]*[:=,]|[ \t]+-+)?[ \t"'` + "`" + `]*([0-9a-f]{32})`), group: 1, check: randomBody(0, 3.0)},
		{kind: "mailgun key", hint: []string{"key-"}, re: re(`key-[0-9a-f]{32}`), check: randomBody(4, 3.0)},
		{kind: "jwt", hint: []string{"eyj"}, re: re(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	}
})

// findProviders finds the providers' tokens: a match must not continue a
// word on either side (the alphabet of most bodies includes - and _, so
// "AIza…-" is whole only when what follows is none of them).
func findProviders(t *text, add func(Finding)) {
	s := t.s
	for _, p := range providers() {
		if !slices.ContainsFunc(p.hint, t.contains) {
			continue
		}
		for _, m := range p.re.FindAllStringSubmatchIndex(s, -1) {
			start, end := m[2*p.group], m[2*p.group+1]
			if m[0] > 0 && isWordByte(s[m[0]-1]) || end < len(s) && (isWordByte(s[end]) || s[end] == '-') {
				continue
			}
			if p.check != nil && !p.check(s[start:end]) {
				continue
			}
			add(Finding{Kind: p.kind, Start: start, End: end})
		}
	}
}

// randomBody checks that the token after its prefix of n bytes is no
// placeholder ("xxxx…", "0000…"): entropy of at least bits a byte. 3.0 for
// bodies of 20 bytes and more, 2.5 for AWS's 16 (random ones fall under
// 3.0 one time in three hundred).
func randomBody(n int, bits float64) func(string) bool {
	return func(tok string) bool { return entropy(tok[n:]) >= bits }
}

// mixedBody checks that the body after the prefix (up to the first - or _,
// and OpenAI's "proj-"…) mixes upper and lower case, and digits when digits
// is set, with entropy of at least 3 bits a byte: a generated string, not
// words ("sk-learn-compatible-…").
func mixedBody(digits bool) func(string) bool {
	return func(tok string) bool {
		body := tok[strings.IndexAny(tok, "-_")+1:]
		for _, p := range []string{"proj-", "svcacct-", "admin-"} {
			body = strings.TrimPrefix(body, p)
		}
		return strings.ContainsFunc(body, func(r rune) bool { return r >= 'A' && r <= 'Z' }) &&
			strings.ContainsFunc(body, func(r rune) bool { return r >= 'a' && r <= 'z' }) &&
			(!digits || strings.ContainsAny(body, "0123456789")) && entropy(body) >= 3.0
	}
}

// crcTail checks GitHub's token checksum (also npm's): after the prefix of n
// bytes come 30 random base62 characters and 6 more that are their CRC32
// (IEEE), a number written in base62 (0-9A-Za-z).
func crcTail(n int) func(string) bool {
	return func(tok string) bool {
		body := tok[n:]
		if len(body) != 36 {
			return false
		}
		var sum uint64
		for i := 30; i < 36; i++ {
			d := strings.IndexByte(base62, body[i])
			if d < 0 {
				return false
			}
			sum = sum*62 + uint64(d)
		}
		return sum == uint64(crc32.ChecksumIEEE([]byte(body[:30])))
	}
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
