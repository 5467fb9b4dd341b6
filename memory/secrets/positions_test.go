package secrets

import (
	"strings"
	"testing"
)

// A value in each credential position, in the forms people paste: the
// value alone is replaced, the key, the quotes and the words stay.
func TestRedactForms(t *testing.T) {
	const pw, tok = "Tr0ub4dor&3x", "9f86d081884c7d659a2feaa0c55ad015"
	for _, c := range []struct{ in, want string }{
		// .env and shell
		{"DB_PASSWORD=" + pw, "DB_PASSWORD=[secret: password]"},
		{"POSTGRES_PASSWORD=" + pw + "\n", "POSTGRES_PASSWORD=[secret: password]\n"},
		{"SECRET_KEY=" + tok, "SECRET_KEY=[secret: credential]"},
		{`export FOO_TOKEN="` + tok + `"`, `export FOO_TOKEN="[secret: credential]"`},
		{`API_KEY='` + tok + `'`, `API_KEY='[secret: credential]'`},
		{"SMTP_PASS=" + pw + " # prod", "SMTP_PASS=[secret: password] # prod"},
		{"PGPASSWORD=hLYQgTlqEL9 psql -h db -U app", "PGPASSWORD=[secret: password] psql -h db -U app"},
		{"export MYSQLPASSWORD='" + pw + "'", "export MYSQLPASSWORD='[secret: password]'"},
		// Django's key, unquoted: its ( $ % are chance, not code
		{"SECRET_KEY=k9#x^!*+(%4a8mz2q@w7e-r_5t=y1u3i0o6p9l8kj7h6g5f4d3s$a", "SECRET_KEY=[secret: credential]"},
		{"$env:API_KEY = \"" + tok + "\"", "$env:API_KEY = \"[secret: credential]\""},
		// YAML, TOML, INI, JSON
		{"  password: " + pw, "  password: [secret: password]"},
		{`  password: "` + pw + `"`, `  password: "[secret: password]"`},
		{`password = "` + pw + `"`, `password = "[secret: password]"`},
		{"aws_secret_access_key = XbiufMdI8X2Y4rUmer/BH3M1XS0DRdJuPnBIKpi9", "aws_secret_access_key = [secret: credential]"},
		{"[db]\npassword=" + pw, "[db]\npassword=[secret: password]"},
		{`{"password": "` + pw + `"}`, `{"password": "[secret: password]"}`},
		{`{"password":"` + pw + `"}`, `{"password":"[secret: password]"}`},
		{`{"client_secret": "` + tok + `"}`, `{"client_secret": "[secret: credential]"}`},
		{"spring.datasource.password=" + pw, "spring.datasource.password=[secret: password]"},
		{"clientSecret: " + tok, "clientSecret: [secret: credential]"},
		{"X-API-Key: " + tok, "X-API-Key: [secret: credential]"},
		// code
		{`db = connect(password="` + pw + `")`, `db = connect(password="[secret: password]")`},
		{`cfg := Config{Token: "` + tok + `"}`, `cfg := Config{Token: "[secret: credential]"}`},
		{`const apiKey = '` + tok + `';`, `const apiKey = '[secret: credential]';`},
		{`settings['secret_key'] = '` + tok + `'`, `settings['secret_key'] = '[secret: credential]'`},
		// npm
		{"//registry.npmjs.org/:_authToken=3f2504e0-4f89-11d3-9a0c-0305e82c3301", "//registry.npmjs.org/:_authToken=[secret: credential]"},
		// connection strings and URLs
		{"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + tok + "Qk9wZ3h4==;EndpointSuffix=core.windows.net", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=[secret: credential];EndpointSuffix=core.windows.net"},
		{"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=" + tok + "=", "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=[secret: credential]"},
		{"Server=db;User Id=sa;Password=" + pw + ";", "Server=db;User Id=sa;Password=[secret: password];"},
		{"postgres://admin:" + pw + "@db.example.com:5432/app", "postgres://admin:[secret: password]@db.example.com:5432/app"},
		{"mongodb+srv://app:" + pw + "@cluster0.ab1cd.mongodb.net/test", "mongodb+srv://app:[secret: password]@cluster0.ab1cd.mongodb.net/test"},
		// an @ in the password, pasted unencoded: the userinfo ends at the last @
		{"postgres://admin:p@Xk9vQ2mZ7wLr@db/app", "postgres://admin:[secret: password]@db/app"},
		{"redis://:" + pw + "@cache:6379/0", "redis://:[secret: password]@cache:6379/0"},
		{"https://api.example.com/v1?token=" + tok + "&page=2", "https://api.example.com/v1?token=[secret: credential]&page=2"},
		// command lines
		{"curl -u admin:" + pw + " https://x.example.com", "curl -u admin:[secret: password] https://x.example.com"},
		{"curl --user 'admin:" + pw + "' https://x.example.com", "curl --user 'admin:[secret: password]' https://x.example.com"},
		{"docker login --password " + pw + " registry", "docker login --password [secret: password] registry"},
		// netrc
		{"machine api.example.com login ada password " + pw, "machine api.example.com login ada password [secret: password]"},
		{"machine api.example.com\n  login ada\n  password " + pw + "\n", "machine api.example.com\n  login ada\n  password [secret: password]\n"},
		// headers
		{"Authorization: token " + tok, "Authorization: token [secret: bearer token]"},
		{`req.Header.Set("Authorization", "Bearer ` + tok + `")`, `req.Header.Set("Authorization", "Bearer [secret: bearer token]")`},
		{"Authorization: " + tok, "Authorization: [secret: bearer token]"},
		// prose
		{"the wifi password: " + pw + ", ok?", "the wifi password: [secret: password], ok?"},
		{"my API key: " + tok + ".", "my API key: [secret: credential]."},
	} {
		got, kinds := Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if len(kinds) != 1 {
			t.Errorf("Redact(%q): kinds %q, want one", c.in, kinds)
		}
	}
}

// What must never change: code and notes that name a token, a key or a
// password without holding one, and values that are no secret.
func TestRedactLeavesExpressions(t *testing.T) {
	for _, in := range []string{
		// expressions in a credential position
		"model.generate(x, pad_token=tokenizer.eos_token)",
		"client = OpenAI(api_key=settings.OPENAI_API_KEY)",
		"token=request.headers.get('X-Token')",
		"refresh_token=response.json()['refresh_token']",
		`password = os.environ["DB_PASSWORD"]`,
		"password = os.getenv('DB_PASSWORD', 'x')",
		"token = get_token(user_id=42)",
		"API_KEY=${API_KEY}",
		"export DB_PASSWORD=$DB_PASSWORD_FROM_VAULT",
		"PASSWORD=\"$1\"",
		"password: \"{{ vault_db_password }}\"",
		"api_key: ${{ secrets.OPENAI_API_KEY }}",
		"password: !vault |",
		"password: *db_password",
		"password: &db_password hunter2x",
		"token = f\"{prefix}-{suffix}2024\"",
		"password=%DB_PASSWORD%",
		"password = \"%(password)s\"",
		"apiKey: process.env.API_KEY,",
		"Password: os.Getenv(\"DB_PASSWORD\"),",
		"secret := cfg.Secrets[0]",
		"token = tokens[i]",
		"password = input('Password: ')",
		"headers = {'Authorization': f'Bearer {token}'}",
		"curl -H \"Authorization: Bearer $GITHUB_TOKEN\" https://api.github.com",
		`req.Header.Set("Authorization", "Bearer "+tok)`,
		"curl -u $USER:$PASS https://example.com",
		"postgres://${DB_USER}:${DB_PASSWORD}@db:5432/app",
		// found by the scan of real code and notes (scripts/secretsbench)
		"--- PASS: TestParse/nested/a/b/c (0.00s)",
		`"AWS::Lambda::ApiKey": "5c3f0a9d8e7b6a41",`,
		`"AWS::Glue::EndpointAuthorization": "a0c9d8e7f6b5a431",`,
		`$cred = Credential = 'Contoso01\Admin07'`,
		"Culture=neutral, PublicKeyToken=b77a5c561934e089",
		`cmd.Env = append(env, "PWD="+dir, "HOME="+home)`,
		`u := MultiHostURL("https://a.example:5432,b.example:secret9x@c.example/db")`,
		`"http://Some%20User:Some%20Pass@host.example/"`,
		"    signing_key: PKCS7SigningKeyTypes,",
		"	PrivateKey: testP384PrivateKey,",
		"	cfg.PrivateKey = testEd25519PrivateKey",
		"    disable_session_auth=disable_session_auth2,",
		`_APP_KEY = "catalog:applicationName"`,
		`"encryptionKey": "encryptionKey512",`,
		`case "Authorization", "Proxy-Authenticate", "Cookie2":`,
		`owner = "AIDAQ3EGRV7TZKXMPL4Y"`,
		`spawn(cmd, events={'(?i)password': 'secret\n'})`,
		`User(name='ada', password='password1')`,
		// near the rules for glued password keys, Django keys, Twilio and Hugging Face
		"export PGPASSWORD=$(cat ~/.pgpass)",
		"PGPASSWORD=postgres psql -U postgres",
		"haspassword: false",
		"nexttoken=AAQAAZ3x9kQ2mL7vR8tY1wB5nC0p", // a cursor: a glued token names none
		"SECRET_KEY=get_random_secret_key()",
		"SECRET_KEY=os_environ_get(secret_key_name=dj4_prod)",
		"password=keyring_lookup(service_name=db2_admin_user)",
		"password=lookup_value(name=db_admin_user)+env_suffix_name",
		"SECRET_KEY=$(python -c 'from django.core.management.utils import get_random_secret_key; print(get_random_secret_key())')",
		"key=hashlib_sha256(salt+secret_value_with_a_long_name_2)",
		"The twilio auth token is in 1Password, not here.",
		"twilio auth token 00000000000000000000000000000000",
		"TWILIO_AUTH_TOKEN=your_auth_token",
		"path = hf_hub_download(repo_id=repo, filename=name)",
		"from huggingface_hub import HfApi; hf_HubDownloadProgressCallback",
		// names and placeholders
		"api_key=OPENAI_API_KEY",
		"API_KEY=your-api-key-here",
		"token: YOUR_TOKEN_HERE",
		"password: <your password>",
		"password=********",
		"token=xxxxxxxxxxxxxxxxxxxxxxxx",
		"password: changeme",
		"password = \"\"",
		"secret_key = None",
		"token: null",
		"password: str",
		"password: Optional[str] = None",
		"token: string;",
		`Password string ` + "`json:\"password\"`",
		`"password": {"type": "string", "minLength": 8}`,
		"token = github_token_2024_prod",
		"password=new_password1",
		"password = myPassword1",
		"postgres://user:password@localhost:5432/db",
		"postgres://postgres:postgres@localhost/app",
		"PWD=/home/ada/projects/agent",
		"OLDPWD=/tmp",
		// prose
		"The bearer instruments of the 1882 law were abolished.",
		"Bearer instruments, bearer bonds and bearer shares.",
		"see sk-learn-compatible-estimators-guide for details",
		"The secret = patience, says her grandmother.",
		"$token = Get-Secret -Name github",
		"Reset password link expired; she asked IT for a new one.",
		"Password manager: 1Password. She never wants passwords written into notes.",
		"password: see the vault",
		`"secret": "Don't tell anyone, it's a surprise for the 2 of them!"`,
		`"token": "Expires in 2 hours."`,
		`wwwAuth := "Bearer resource_metadata=" + srv.URL`,
		"Token: `urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6`,",
		"db_password_secret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-AbC123",
		"  auth: 'bXkgdXNlcjpub3QgbXkgcmVhbCBwYXNzd29yZA==',",
		"  password: 'c2VlIHRoZSB2YXVsdCBmb3IgdGhlIHJlYWwgb25l',",
		"token: 12 left this month",
		"max_tokens=4096, temperature=0.2",
		"token_type=bearer",
		"The token ring network at the old office was replaced in 2004.",
		"A note: -----BEGIN RSA PRIVATE KEY----- starts the file.\nThe next lines are mine.",
		"-----BEGIN OPENSSH PRIVATE KEY-----\n...\n-----END OPENSSH PRIVATE KEY-----",
		"The file starts with -----BEGIN RSA PRIVATE KEY----- and ends with -----END RSA PRIVATE KEY----- as usual.",
		"GET session:token:5f3a9c2e7b1d4f6a8c0e2b4d6f8a0c2e",
		"monkey: 9f86d081884c7d659a2feaa0c55ad015",
		"ghp_16C7e42F292c6912E7710c838347Ae178B4a is GitHub's example",
		"cache key-5d41402abc4b2a76b9719d911017c592x",
		// values that are no secret
		"commit a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
		"uuid 3f2504e0-4f89-11d3-9a0c-0305e82c3301",
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGz7QnK2xP9fR3vL8mW1cT6yB4hJ0sD5aE7uN2oI9kV ada@laptop",
		"![dot](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==)",
	} {
		if got, kinds := Redact(in); got != in || kinds != nil {
			t.Errorf("Redact(%q) = %q (%q), want it unchanged", in, got, kinds)
		}
	}
}

// A private key block is replaced whole, through its END line, as pasted:
// in a file, indented in YAML, inside a JSON string with \n; an encrypted
// one with its armour headers.
func TestKeyBlocks(t *testing.T) {
	body := "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi4b1c8d5e2f9a6b3c0d7e4f1a8b5c2d9e6f3\nq2w3e4r5t6y7u8i9o0p1a2s3d4f5g6h7j8k9l0z1x2c3v4b5n6m7Q8W9E0R1T2Y3U4\nI5O6P7A8S9D0F1G2H3J4K5L6==\n"
	for _, c := range []struct{ in, want string }{
		{"a\n-----BEGIN RSA PRIVATE KEY-----\n" + body + "-----END RSA PRIVATE KEY-----\nb", "a\n[secret: private key]\nb"},
		{"key: |\n  -----BEGIN EC PRIVATE KEY-----\n  " + strings.ReplaceAll(body, "\n", "\n  ") + "-----END EC PRIVATE KEY-----\n", "key: |\n  [secret: private key]\n"},
		{`{"private_key": "-----BEGIN PRIVATE KEY-----\n` + strings.ReplaceAll(body, "\n", `\n`) + `-----END PRIVATE KEY-----\n"}`, `{"private_key": "[secret: private key]\n"}`},
		{"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F2504E04F8911D39A0C0305E82C3301\n\n" + body + "-----END RSA PRIVATE KEY-----", "[secret: private key]"},
		{"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + body + "=Xk2f\n-----END PGP PRIVATE KEY BLOCK-----", "[secret: private key]"},
		// no END line: the header and what follows are left as written
		{"cut -----BEGIN RSA PRIVATE KEY-----\n" + body, "cut -----BEGIN RSA PRIVATE KEY-----\n" + body},
		// an END line of another label does not close it
		{"-----BEGIN RSA PRIVATE KEY-----\n" + body + "-----END EC PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----\n" + body + "-----END EC PRIVATE KEY-----"},
		// a body of words (base64's alphabet, in short runs) or too short to be a key
		{"-----BEGIN RSA PRIVATE KEY-----\nthe key body was cut out of this note by me on purpose\n-----END RSA PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----\nthe key body was cut out of this note by me on purpose\n-----END RSA PRIVATE KEY-----"},
		{"-----BEGIN EC PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQy\n-----END EC PRIVATE KEY-----", "-----BEGIN EC PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQy\n-----END EC PRIVATE KEY-----"},
		{"-----BEGIN EC PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyu\n-----END EC PRIVATE KEY-----", "[secret: private key]"},
		// a public key or certificate is no secret
		{"-----BEGIN PUBLIC KEY-----\n" + body + "-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\n" + body + "-----END PUBLIC KEY-----"},
	} {
		if got, _ := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// Every threshold of the detector, on each side of it: the value that just
// passes is replaced, the one that just fails is left.
func TestThresholds(t *testing.T) {
	for _, c := range []struct {
		name     string
		in       string
		redacted bool
	}{
		// a password: six bytes (issue 39: the old detector took any value
		// of twelve bytes and more, a 12-letter passphrase too)
		{"password 6 bytes", "password=hunt3r", true},
		{"password 5 bytes", "password=hnt3r", false},
		{"password 12 letters, no digit or symbol", "password=passphrasexy", false},
		{"password 11 letters and a digit", "password=passphrase1", true},
		{"password letters only, long", "password=correcthorsebatterystaple", false},
		{"password letter and symbol", "password=hunt#er", true},
		{"password digits and symbols, no letter", "password=123456#7890", false},
		{"password a letter, digits and symbols", "password=123456#789a", true},
		{"token digits only: a number", "token=12345678901234567890", false},
		// entropy of a password: 2 bits a byte
		{"password entropy 2.25", "password=k3vr3t", true},
		{"password entropy 1.92", "password=abab12", false},
		{"password entropy 2.0 exactly", "password=aabb1122", true},
		{"password entropy 1.91", "password=aaabb112", false},
		// a token: sixteen bytes
		{"token 16 bytes", "token=9f86d081884c7d65", true},
		{"token 15 bytes", "token=9f86d081884c7d6", false},
		// a token needs a digit, or three classes
		{"token no digit, two classes", "token=fhqkzmwbxjrtvpnl", false},
		{"token no digit, three classes", "token=fhQkzm+bxJrtVpn9", true},
		{"token digit", "token=fhqkzmwbxjrtvpn1", true},
		// entropy of a token: 2.5 bits a byte
		{"token entropy 2.5 exactly", "token=aaaabbbbccdd1122", true},
		{"token entropy 2.48", "token=aaaabbbccc111223", false},
		// made of words: two word pieces make an identifier, one does not
		{"one word and digits", "password=hunter2024", true},
		{"two words and digits", "password=hunt_er2024", false},
		{"a word piece takes no more than five digits", "token=deploy_build_123456_main", true},
		{"five digits are still a word piece", "token=deploy_build_12345_main", false},
		{"a piece of one letter is no word", "token=g_deploy_build_1234_main", true},
		{"a letter and digits are a word piece (P256, s3)", "token=g2_deploy_build_main", false},
		{"camelCase words with an acronym and digits", "token=testEd25519PrivateKeyPKCS7", false},
		// a value that holds a credential's name, or says it is an example
		{"names a password", "password=password2024", false},
		{"names a token", "token=k7Qz9-token-Xw3v8Rt", false},
		{"one letter off naming it", "token=k7Qz9-tokan-Xw3v8Rt", true},
		{"one letter off naming a password", "password=passwerd2024", true},
		{"an example password, spelt as docs do", "password=P@55w0rd!", false},
		{"an example password cut by a symbol", "password=passwo^rd", false},
		{"a placeholder", "password=changeme42", false},
		// pieces of three characters on average make words; of fewer, a random run
		{"pieces of 3 on average", "token=abc_de2_foo_it4_kim", false},
		{"pieces under 3 on average", "token=abc_de2_foo_it4_ki", true},
		// a name changes character class every few bytes; a random string every other one
		{"class changes every other byte, no more", "token=Abc1Def2Ghi3Jol4", false},
		{"class changes more often than every other byte", "token=Ab1Cd2Ef3Go4Hi5Jo", true},
		{"6 class runs in 11 bytes", "password=abc1_abc1_ab1", true},
		{"6 class runs in 12 bytes", "password=abcd1_abc1_ab1", false},
		// upper-case pieces are words only with a vowel (API) or as known (PKCS)
		{"upper-case pieces with vowels", "token=OPENAI_API_KEY_2024_PKCS7", false},
		{"an upper-case piece without a vowel", "token=OPENAI_API_KEY_2024_BXTR", true},

		// a Django key unquoted, its ( a chance: 40 bytes, three of its symbols, 4 bits a byte
		{"a Django key of 40 bytes", "SECRET_KEY=53efr4edt2(sywb3wkh5d^nsipzz5fk2#z9ri19r", true},
		{"39 bytes with a ( are code", "SECRET_KEY=53efr4edt2(sywb3wkh5d^nsipzz5fk2#z9ri19", false},
		{"a Django key with three of its symbols", "SECRET_KEY=0wyojfljoo(a5lqsaj08xui6d3*9zzzzg4zdmen2khvd%", true},
		{"two symbols with a ( are code", "SECRET_KEY=0wyojfljoo(a5lqsaj08xui6d3*9zzzzg4zdmen2khvdq", false},
		{"a Django key of 4.0 bits a byte", "SECRET_KEY=hb*+3*4a+e13(1agd(!1f+!gcbdb*h(34fc!a4fhgced222e", true},
		{"3.91 bits a byte with a ( are code", "SECRET_KEY=(2c31(a!*(!e*1bhg+3abadcc2hf3h2+d+f!eb*dgefg1", false},

		// a provider's body: 2.5 bits a byte for AWS's 16 bytes
		{"AWS body entropy 2.5", "key AKIAAAAABBBBCCDD1122 here", true},
		{"AWS body entropy 2.48", "key AKIAAAAABBBCCC111223 here", false},
		{"a piece of four letters without a vowel is no word", "token=mokzam_bjrt_vupnel9", true},
		{"four letters with a vowel are a word", "token=mokzam_bjot_vupnel9", false},
		{"a symbol that no name holds makes it no identifier", "password=hunt#er_2024", true},
		{"a piece of three letters without a vowel is one (db, cfg)", "token=cfg_db_prod_2024_main", false},
		{"three letters without a vowel, not a known word", "token=deploy_bxt_build_2024", true},
		{"two letters without a vowel are a word", "token=deploy_bx_build_2024", false},
		// two camel pieces alone are no name; two pieces with a separator, or three, are
		{"two camel pieces", "password=Tyat15Wjywo", true},
		{"two pieces and a separator", "password=Tyat15_Wjywo", false},
		{"three camel pieces", "password=Tyat15WjywoKlos", false},
	} {
		_, kinds := Redact(c.in)
		if got := len(kinds) > 0; got != c.redacted {
			t.Errorf("%s: Redact(%q) kinds %q, want redacted = %v", c.name, c.in, kinds, c.redacted)
		}
	}
}

// The numbers behind TestThresholds, so that a changed example cannot
// silently stop sitting on its boundary.
func TestThresholdExamples(t *testing.T) {
	for _, c := range []struct {
		v    string
		bits float64
	}{
		{"k3vr3t", 2.25}, {"abab12", 1.92}, {"aabb1122", 2.0}, {"aaabb112", 1.91},
		{"aaaabbbbccdd1122", 2.5}, {"aaaabbbccc111223", 2.48},
		{"hb*+3*4a+e13(1agd(!1f+!gcbdb*h(34fc!a4fhgced222e", 4.0}, {"(2c31(a!*(!e*1bhg+3abadcc2hf3h2+d+f!eb*dgefg1", 3.91},
	} {
		if got := entropy(c.v); got < c.bits-0.01 || got > c.bits+0.01 {
			t.Errorf("entropy(%q) = %.3f, want %.3f", c.v, got, c.bits)
		}
	}
	if passwordStrength.minBits != 2.0 || tokenStrength.minBits != 2.5 || passwordStrength.minLen != 6 || tokenStrength.minLen != 16 {
		t.Errorf("thresholds moved: %+v %+v; move TestThresholds' examples with them", passwordStrength, tokenStrength)
	}
}
