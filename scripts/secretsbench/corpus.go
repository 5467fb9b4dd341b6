package main

import (
	"encoding/base64"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"strings"
)

// A positive is a line (or block) as people paste it, holding one secret;
// it is caught when the redacted text no longer holds the secret's value.
type positive struct {
	kind, text, secret string
}

const (
	lower    = "abcdefghijklmnopqrstuvwxyz"
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digits   = "0123456789"
	hexLower = "0123456789abcdef"
	alnum    = digits + upper + lower
	b64      = upper + lower + digits + "+/"
	b64url   = upper + lower + digits + "-_"
)

func pick(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func oneOf[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// ghStyle is GitHub's (and npm's) token: prefix, 30 base62 characters and
// their CRC32 in base62, six digits.
func ghStyle(r *rand.Rand, prefix string) string {
	body := pick(r, alnum, 30)
	sum := crc32.ChecksumIEEE([]byte(body))
	tail := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		tail[i] = alnum[sum%62]
		sum /= 62
	}
	return prefix + body + string(tail)
}

// password is what a password manager or a person makes: random characters
// of three or four classes, or a word with digits and a symbol in it.
func password(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		w := oneOf(r, "Summer", "falcon", "Orange", "river", "Monkey", "kitten", "Dragon", "winter")
		return w + pick(r, digits, 2+r.IntN(3)) + oneOf(r, "!", "#", "*", "+") + pick(r, lower, 2)
	}
	for {
		p := pick(r, lower+upper+digits+"!*+=-_~^", 10+r.IntN(14))
		if strings.ContainsAny(p, digits) && !strings.ContainsAny(p[len(p)-1:], "-_~^") && p[0] != '-' {
			return p
		}
	}
}

// token is a generated API key or secret as the providers without a prefix
// issue them: hex, base64, base62, Django's secret key, a UUID.
func token(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0:
		return pick(r, hexLower, 32)
	case 1:
		return pick(r, hexLower, 40)
	case 2:
		return pick(r, b64, 40)
	case 3:
		return pick(r, alnum, 32)
	case 4:
		return "django-insecure-" + pick(r, lower+digits+"!@%^&*(-_=+)", 34)
	default:
		return uuid(r)
	}
}

func uuid(r *rand.Rand) string {
	h := pick(r, hexLower, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + oneOf(r, "8", "9", "a", "b") + h[17:20] + "-" + h[20:]
}

// providerTokens: every provider's shape, with a random body.
func providerTokens(r *rand.Rand) []positive {
	mk := func(kind, tok string) positive { return positive{kind: kind, secret: tok} }
	return []positive{
		mk("aws access key", oneOf(r, "AKIA", "ASIA")+pick(r, upper+"234567", 16)),
		mk("github token", ghStyle(r, oneOf(r, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"))),
		mk("github token", "github_pat_11"+pick(r, upper+digits, 20)+"_"+pick(r, alnum, 59)),
		mk("gitlab token", "glpat-"+pick(r, alnum+"-_", 20)),
		mk("openai key", "sk-proj-"+pick(r, alnum, 48)+"T3BlbkFJ"+pick(r, alnum, 48)),
		mk("openai key", "sk-"+pick(r, alnum, 20)+"T3BlbkFJ"+pick(r, alnum, 20)),
		mk("anthropic key", "sk-ant-api03-"+pick(r, b64url, 93)+"AA"),
		mk("slack token", "xoxb-"+pick(r, digits, 12)+"-"+pick(r, digits, 13)+"-"+pick(r, alnum, 24)),
		mk("slack webhook", "https://hooks.slack.com/services/T"+pick(r, upper+digits, 8)+"/B"+pick(r, upper+digits, 10)+"/"+pick(r, alnum, 24)),
		mk("google api key", "AIza"+pick(r, alnum+"-_", 34)+oneOf(r, "-", "_", "Q", "7")),
		mk("stripe key", oneOf(r, "sk_live_", "rk_live_", "sk_test_")+pick(r, alnum, 24+r.IntN(76))),
		mk("stripe webhook secret", "whsec_"+pick(r, alnum, 32)),
		mk("jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."+"eyJ"+pick(r, b64url, 40)+"."+pick(r, b64url, 43)),
		mk("hugging face token", "hf_"+pick(r, upper+lower, 34)),
		mk("hugging face token", "hf_"+pick(r, alnum, 34)),
		mk("npm token", ghStyle(r, "npm_")),
		mk("sendgrid key", "SG."+pick(r, b64url, 22)+"."+pick(r, b64url, 43)),
		mk("discord webhook", "https://discord.com/api/webhooks/"+pick(r, digits, 18)+"/"+pick(r, b64url, 68)),
		mk("digitalocean token", oneOf(r, "dop_v1_", "doo_v1_")+pick(r, hexLower, 64)),
		mk("shopify token", oneOf(r, "shpat_", "shpss_", "shpca_")+pick(r, hexLower, 32)),
		mk("age secret key", "AGE-SECRET-KEY-1"+pick(r, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
		mk("telegram bot token", pick(r, "123456789", 1)+pick(r, digits, 9)+":AA"+pick(r, b64url, 33)),
		mk("pypi token", "pypi-AgEIcHlwaS5vcmc"+pick(r, b64url, 150)),
		mk("docker hub token", "dckr_pat_"+pick(r, b64url, 27)),
		mk("linear key", "lin_api_"+pick(r, alnum, 40)),
		mk("mailgun key", "key-"+pick(r, hexLower, 32)),
	}
}

// providerForms: where a provider's token is pasted.
var providerForms = []string{
	"my token is %s, keep it safe",
	"TOKEN=%s",
	"export API_TOKEN=\"%s\"",
	"  token: %s",
	`{"token": "%s"}`,
	"- backup key for the NAS: %s",
	"client = Client(\"%s\")",
	"curl -H \"Authorization: Bearer %s\" https://api.example.com/v1/me",
}

// Positives builds the corpus of secrets: every provider in every form,
// passwords and tokens in every credential position, key blocks.
func Positives(seed uint64) []positive {
	r := rand.New(rand.NewPCG(seed, 1))
	var out []positive
	for range 2 {
		for _, p := range providerTokens(r) {
			for _, f := range providerForms {
				if strings.HasPrefix(p.secret, "https://") && strings.Contains(f, "Bearer") {
					continue
				}
				out = append(out, positive{kind: p.kind, text: fmt.Sprintf(f, p.secret), secret: p.secret})
			}
		}
	}
	passwordForms := []string{
		"DB_PASSWORD=%s", "POSTGRES_PASSWORD=%s", "MYSQL_ROOT_PASSWORD=\"%s\"", "export DB_PASS='%s'",
		"REDIS_PASSWORD = %s", "  password: %s", "  password: \"%s\"", "password = \"%s\"", "password=%s",
		`"password": "%s",`, "postgres://admin:%s@db.internal:5432/app", "mysql://root:%s@127.0.0.1:3306/shop",
		"mongodb+srv://app:%s@cluster0.ab1cd.mongodb.net/prod?retryWrites=true", "redis://:%s@cache.internal:6379/0",
		"amqp://guest:%s@rabbit:5672/", "curl -u admin:%s https://ci.example.com/api/json",
		"curl --user \"deploy:%s\" -X POST https://example.com/hook", "machine api.example.com login ada password %s",
		"machine git.example.com\n  login ada\n  password %s", "Server=tcp:db.example.com,1433;Database=shop;User ID=sa;Password=%s;Encrypt=true",
		"docker login -u ada --password %s registry.example.com", "spring.datasource.password=%s",
		"the wifi password: %s (guest network)", "db = psycopg2.connect(host=\"db\", user=\"app\", password=\"%s\")",
		"SMTP_PASS=%s", "ldap_bind_password: '%s'", "[client]\nuser=root\npassword=%s",
		"PGPASSWORD=%s psql -h db.internal -U app shop",
	}
	for range 3 {
		for _, f := range passwordForms {
			p := password(r)
			out = append(out, positive{kind: "password", text: fmt.Sprintf(f, p), secret: p})
		}
	}
	tokenForms := []string{
		"SECRET_KEY=%s", "export FOO_TOKEN=\"%s\"", "API_KEY='%s'", "aws_secret_access_key = %s",
		"api_key: %s", `"api_key": "%s"`, "client_secret = \"%s\"", "SLACK_SIGNING_SECRET=%s",
		"Authorization: Bearer %s", "Authorization: token %s", "curl -H \"X-API-Key: %s\" https://api.example.com",
		"https://api.example.com/v1/items?access_token=%s&page=2", "accessToken: '%s',", "const apiKey = \"%s\";",
		"app.config['SECRET_KEY'] = '%s'", "webhook_secret: \"%s\"", "my API key: %s",
	}
	for range 3 {
		for _, f := range tokenForms {
			t := token(r)
			if !strings.Contains(f, "\"%s\"") && !strings.Contains(f, "'%s'") {
				for strings.ContainsAny(t, "!@%^&*()") { // unquoted: a shell would need quotes around these
					t = token(r)
				}
			}
			out = append(out, positive{kind: "credential", text: fmt.Sprintf(f, t), secret: t})
		}
	}
	// Django's key unquoted in a .env (its ( and $ by chance), and a
	// Twilio auth token, 32 hex digits without a prefix, where it is named
	for range 3 {
		k := pick(r, lower+digits+"!@#$%^&*(-_=+)", 50)
		out = append(out, positive{kind: "credential", text: "DJANGO_SECRET_KEY=" + k, secret: k})
		tw := pick(r, hexLower, 32)
		f := oneOf(r, "my twilio auth token is %s, the SID is in the notes", "Twilio auth token: %s", "twilio auth token %s (prod)")
		out = append(out, positive{kind: "twilio auth token", text: fmt.Sprintf(f, tw), secret: tw})
	}
	// connection strings
	for range 6 {
		k := base64.StdEncoding.EncodeToString([]byte(pick(r, alnum, 64)))
		out = append(out, positive{kind: "credential", text: "DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey=" + k + ";EndpointSuffix=core.windows.net", secret: k})
		s := base64.StdEncoding.EncodeToString([]byte(pick(r, alnum, 32)))
		out = append(out, positive{kind: "credential", text: "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=" + s, secret: s})
		u := uuid(r)
		out = append(out, positive{kind: "credential", text: "//registry.npmjs.org/:_authToken=" + u, secret: u})
		n := ghStyle(r, "npm_")
		out = append(out, positive{kind: "npm token", text: "//npm.pkg.github.com/:_authToken=" + n, secret: n})
		basic := base64.StdEncoding.EncodeToString([]byte("admin:" + password(r)))
		out = append(out, positive{kind: "basic credentials", text: "Authorization: Basic " + basic, secret: basic})
	}
	// key blocks
	for i := range 12 {
		label := []string{"RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"}[i%6]
		var body strings.Builder
		for range 3 + r.IntN(20) {
			body.WriteString(pick(r, b64, 64) + "\n")
		}
		body.WriteString(pick(r, b64, 1+r.IntN(60)) + "=\n")
		block := "-----BEGIN " + label + "-----\n" + body.String() + "-----END " + label + "-----"
		switch i / 6 {
		case 0:
			out = append(out, positive{kind: "private key", text: "deploy key:\n" + block + "\n", secret: block})
		default:
			j := strings.ReplaceAll(block, "\n", `\n`)
			out = append(out, positive{kind: "private key", text: `  "private_key": "` + j + `\n",`, secret: j})
		}
	}
	return out
}

// Negatives builds the corpus of what must never change: lines of code and
// notes that name tokens, keys and passwords without holding one (written
// for this corpus, in the style of Python, Go, JS, shell, config and
// notes), and values that are no secret: hashes, git SHAs, UUIDs, SSH
// public keys, base64 images.
func Negatives(seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 2))
	out := append([]string(nil), handwritten...)
	for range 20 {
		out = append(out,
			"commit "+pick(r, hexLower, 40),
			"git checkout "+pick(r, hexLower, 7)+" && git cherry-pick "+pick(r, hexLower, 12),
			pick(r, hexLower, 64)+"  go1.23.4.linux-amd64.tar.gz",
			"sha1: "+pick(r, hexLower, 40),
			"image: ghcr.io/acme/api@sha256:"+pick(r, hexLower, 64),
			"request id "+uuid(r)+" failed after 3 retries",
			`{"id": "`+uuid(r)+`", "name": "backup"}`,
			"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"+pick(r, b64, 43)+" ada@laptop",
			"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ"+pick(r, b64, 340)+" deploy@ci",
			"![chart](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA"+pick(r, b64, 200)+"==)",
			`<img src="data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ`+pick(r, b64, 120)+`">`,
			`integrity="sha384-`+pick(r, b64, 64)+`"`,
			"etag: W/\""+pick(r, hexLower, 32)+"\"",
			"cache_key = \""+pick(r, hexLower, 32)+"\"",
			"password_hash = \"$2b$12$"+pick(r, b64url, 53)+"\"",
		)
	}
	return out
}

// handwritten: code and notes that name credentials without holding one.
var handwritten = []string{
	// Python
	"model.generate(input_ids, pad_token_id=tokenizer.eos_token_id, max_new_tokens=256)",
	"outputs = model.generate(x, pad_token=tokenizer.eos_token)",
	"client = OpenAI(api_key=settings.OPENAI_API_KEY)",
	"client = OpenAI(api_key=os.environ[\"OPENAI_API_KEY\"])",
	"token = request.headers.get(\"Authorization\", \"\").removeprefix(\"Bearer \")",
	"refresh_token = response.json()[\"refresh_token\"]",
	"password = getpass.getpass(\"Password: \")",
	"password = os.getenv(\"DB_PASSWORD\")",
	"SECRET_KEY = env(\"DJANGO_SECRET_KEY\")",
	"api_key = config.get(\"openai\", \"api_key\")",
	"headers = {\"Authorization\": f\"Bearer {token}\"}",
	"headers = {\"Authorization\": \"Bearer \" + access_token}",
	"def login(username: str, password: str) -> Session:",
	"    password: str = Field(..., min_length=12)",
	"    token: Optional[str] = None",
	"    secret_key: SecretStr",
	"if not api_key:\n    raise ValueError(\"api_key is required\")",
	"user.set_password(form.cleaned_data[\"password1\"])",
	"hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
	"tokens = tokenizer(text, return_tensors=\"pt\", truncation=True)",
	"self.max_tokens = max_tokens",
	"kwargs[\"token\"] = token or HfFolder.get_token()",
	"token=token,",
	"password=password,",
	"api_key=api_key,",
	"access_token = create_access_token(identity=user.id)",
	"secret = base64.b64decode(secret_b64)",
	"AWS_SECRET_ACCESS_KEY = os.environ.get('AWS_SECRET_ACCESS_KEY')",
	"parser.add_argument(\"--token\", help=\"GitHub token (or set GITHUB_TOKEN)\")",
	"assert response.json()[\"token_type\"] == \"bearer\"",
	"logger.info(\"refreshing token for %s\", user_id)",
	"eos_token = \"</s>\"",
	"bos_token = \"<s>\"",
	"unk_token=\"<unk>\", pad_token=\"<pad>\"",
	"# TODO: rotate the API key every 90 days",
	// Go
	"Password string `json:\"password\" yaml:\"password\"`",
	"Token    string `env:\"GITHUB_TOKEN,required\"`",
	"cfg := Config{APIKey: os.Getenv(\"API_KEY\"), Timeout: 30 * time.Second}",
	"req.Header.Set(\"Authorization\", \"Bearer \"+token)",
	"req.SetBasicAuth(user, password)",
	"token, err := oauth2.Exchange(ctx, code)",
	"secret := []byte(os.Getenv(\"JWT_SECRET\"))",
	"if password == \"\" {\n\treturn errors.New(\"password is empty\")\n}",
	"apiKey := flag.String(\"api-key\", \"\", \"the service's API key\")",
	"Password: cfg.DB.Password,",
	"Token: tok.AccessToken,",
	"key := fmt.Sprintf(\"session:%s\", id)",
	"tokenSource := conf.TokenSource(ctx, tok)",
	// JS / TS
	"const apiKey = process.env.OPENAI_API_KEY;",
	"const token = localStorage.getItem('token');",
	"headers: { Authorization: `Bearer ${token}` },",
	"fetch(url, { headers: { 'X-API-Key': apiKey } })",
	"export const SECRET = import.meta.env.VITE_SECRET;",
	"password: z.string().min(8, 'Password must be at least 8 characters'),",
	"interface Credentials { username: string; password: string; }",
	"const { accessToken, refreshToken } = await auth.refresh();",
	"res.cookie('token', token, { httpOnly: true, secure: true });",
	"if (!process.env.STRIPE_SECRET_KEY) throw new Error('missing key');",
	// shell, CI, config
	"export GITHUB_TOKEN=$(gh auth token)",
	"export OPENAI_API_KEY=\"$(pass show openai/api-key)\"",
	"export DB_PASSWORD=${DB_PASSWORD:-changeme}",
	"curl -H \"Authorization: Bearer $TOKEN\" https://api.github.com/user",
	"curl -u \"$JENKINS_USER:$JENKINS_TOKEN\" https://ci.example.com/api/json",
	"echo \"$DOCKER_PASSWORD\" | docker login -u \"$DOCKER_USER\" --password-stdin",
	"read -rsp 'Password: ' password",
	"mysql -u root -p shop < dump.sql",
	"API_KEY=your-api-key-here",
	"OPENAI_API_KEY=sk-...",
	"GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	"AWS_SECRET_ACCESS_KEY=<your secret access key>",
	"DB_PASSWORD=",
	"SECRET_KEY=change-me-in-production",
	"  password: ${POSTGRES_PASSWORD}",
	"  api_key: ${{ secrets.API_KEY }}",
	"  token: \"{{ vault_token }}\"",
	"      - name: GITHUB_TOKEN\n        valueFrom:\n          secretKeyRef:\n            name: gh\n            key: token",
	"password: !vault |",
	"secret_key_ref: projects/acme/secrets/db-password/versions/latest",
	"auth: true",
	"auth_method: token",
	"token_url: https://oauth2.googleapis.com/token",
	"password_min_length = 12",
	"max_tokens = 4096",
	"PWD=/home/ada/src/agent",
	"OLDPWD=/home/ada",
	"passwd: files systemd",
	"postgres://user:password@localhost:5432/mydb",
	"postgres://postgres:postgres@localhost/test",
	"redis://localhost:6379/0",
	"https://user@example.com/repo.git",
	"mongodb://mongo:27017/app",
	"Server=localhost;Database=shop;Trusted_Connection=True;",
	"machine github.com login ada password ${GH_TOKEN}",
	// notes and prose
	"The bearer instruments of the old law were abolished in 1882.",
	"Bearer bonds were popular in the 1980s; bearer shares are gone.",
	"see sk-learn-compatible-estimators-guide for the API",
	"The secret = patience, says her grandmother.",
	"Reset password link expired; she asked IT for a new one.",
	"Password manager: 1Password. She never wants passwords written into notes.",
	"Rotated the GitHub token today; the new one is in the vault, not here.",
	"Config keys: api_key, access_token and client_secret live in the vault.",
	"Use `export DB_PASSWORD=$DB_PASSWORD_FROM_VAULT` in the deploy script, never the value.",
	"the token: a one-time code from the authenticator app",
	"password: the usual one, with the year at the end",
	"API key: ask Priya, she has it in 1Password",
	"secret: don't tell anyone about the surprise party!",
	"Token budget: 8k context, 1k reserve for the reply.",
	"The key: keep sentences short.",
	"A note about -----BEGIN RSA PRIVATE KEY----- headers: the next lines are mine.\nThey are not a key, and must stay.",
	"The PEM starts with -----BEGIN PRIVATE KEY----- and ends with -----END PRIVATE KEY----- as usual.",
	"-----BEGIN OPENSSH PRIVATE KEY-----\n(redacted, see the vault)\n-----END OPENSSH PRIVATE KEY-----",
	"GitHub's docs use ghp_16C7e42F292c6912E7710c838347Ae178B4a as an example token.",
	"Slack's xoxb- tokens and xoxp- tokens differ in scope.",
	"hf_ tokens come from the Hugging Face settings page.",
	"Telegram bot tokens look like 123456:ABC-DEF; ours is in the vault.",
	"Monkey: 3 bananas a day. Donkey: hay.",
	"The key-value store holds session:token:abc entries.",
	"We met at 12:30; token ring; passkey; bypass: the north road.",
	"max_connections = 200, shared_buffers = 4GB",
	"Book: The Art of Computer Programming, ISBN 978-0-201-89683-1.",
	"AKI and Askia from the team join; hotel ref SKI-2026-ALPS.",
	"Her GitHub handle is ada-lovelace-dev; the repo is ada/dotfiles.",
	"Base64 of \"hello\" is aGVsbG8=; she used it in a workshop.",
	"GET session:token:5f3a9c2e7b1d4f6a8c0e2b4d6f8a0c2e",
	"authorization: pending review by legal",
	"Authorization: required for every request (see the docs).",
	// near the rules for glued password keys, Django keys, Twilio and Hugging Face
	"export PGPASSWORD=$(cat ~/.pgpass)",
	"PGPASSWORD=postgres psql -U postgres -h localhost",
	"DJANGO_SECRET_KEY=$(python -c 'from django.core.management.utils import get_random_secret_key; print(get_random_secret_key())')",
	"The twilio auth token is in 1Password; the account SID is on the console.",
	"TWILIO_AUTH_TOKEN=your_auth_token",
	"path = hf_hub_download(repo_id=\"meta-llama/Llama-3.2-1B\", filename=\"config.json\")",
}
