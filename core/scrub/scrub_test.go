package scrub

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
)

func chunk(corpus core.CorpusType, text string) core.Chunk {
	return core.Chunk{ID: core.ChunkID("r/f", 0, len(text)), SourceURI: "r/f", Corpus: corpus, Text: text}
}

func TestCleanSecrets(t *testing.T) {
	tests := []struct {
		name   string
		corpus core.CorpusType
		in     string
		secret string // must be gone
		want   string // placeholder that must appear
	}{
		{"aws key in go", core.CodeLogic, `cfg := aws.Config{AccessKey: "AKIAIOSFODNN7EXAMPLE"}`, "AKIAIOSFODNN7EXAMPLE", "<AWS_KEY>"},
		{"aws secret in env template", core.CodeConfig, "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "<"},
		{"github token in python", core.CodeLogic, `TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"`, "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "<GITHUB_TOKEN>"},
		{"slack token in yaml", core.CodeDeploy, "slackToken: xoxb-1234567890-abcdefghijkl", "xoxb-1234567890-abcdefghijkl", "<SLACK_TOKEN>"},
		{"slack webhook in runbook", core.DocRunbook, "post to https://hooks.slack.com/services/T000/B000/XXXXXXXX", "hooks.slack.com/services/T000", "<SLACK_WEBHOOK>"},
		{"jwt in slack", core.ConvoSlack, "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'", "eyJhbGciOiJIUzI1NiJ9", "<JWT>"},
		{"dsn password in compose", core.CodeDeploy, "DATABASE_URL: postgres://shop:s3cr3tpw@postgres:5432/shopdb", "s3cr3tpw", "<PASSWORD>"},
		{"smtp pass in js", core.CodeLogic, `const transport = nodemailer.createTransport({ auth: { user: "app", pass: "Qa4MailPw11" } })`, "Qa4MailPw11", `pass: "<SECRET>"`},
		{"SMTP_PASS in env", core.CodeConfig, "SMTP_PASS=Qa4MailPw11\n", "Qa4MailPw11", "<SECRET>"},
		{"go mysql dsn in compose", core.CodeDeploy, "MYSQL_DSN: shop:Xk2ab9Qw7z@tcp(mysql:3306)/shop?parseTime=true", "Xk2ab9Qw7z", "shop:<PASSWORD>@tcp(mysql:3306)/shop"},
		{"go mysql dsn in go", core.CodeLogic, `db, err := sql.Open("mysql", "app:p@ss:w0rd@unix(/var/run/mysqld.sock)/orders")`, "w0rd", `"app:<PASSWORD>@unix(`},
		{"password literal in ts", core.CodeLogic, `const client = new Pool({ password: "hunter2hunter2" })`, "hunter2hunter2", "<SECRET>"},
		{"k8s env pair", core.CodeDeploy, "- name: DB_PASSWORD\n  value: sup3rs3cret\n", "sup3rs3cret", "<SECRET>"},
		{"json client secret", core.CodeConfig, `{"ClientSecret": "Zx81-ab_Q92lmN"}`, "Zx81-ab_Q92lmN", "<SECRET>"},
		{"private key block", core.CodeLogic, "key := `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----`", "MIIEowIBAAKCAQEA7", "<PRIVATE_KEY>"},
		{"stripe key", core.CodeLogic, `stripe.Key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"`, "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "<STRIPE_KEY>"},
		{"email in transcript", core.ConvoTranscript, "Alice: mail me at alice.smith@acme-corp.com please", "alice.smith@acme-corp.com", "<EMAIL_1>"},
		{"phone in runbook", core.DocRunbook, "Escalate to the DBA on call: +1 415-555-0134", "415-555-0134", "<PHONE_1>"},
		{"ssn in gdoc", core.DocGoogle, "customer SSN 123-45-6789 was logged", "123-45-6789", "<SSN_1>"},
		{"secret after non-ascii text", core.CodeConfig, "İİİİ note: ÅÄÖ\ndb_password: Zx81-ab_Q92lmN", "Zx81-ab_Q92lmN", "<SECRET>"},
		{"phone with parens", core.ConvoTranscript, "call (415) 555-0134 now", "555-0134", "<PHONE_1>"},
		{"jdbc password parameter", core.CodeConfig, "spring.datasource.url=jdbc:postgresql://db:5432/app?user=app&password=Tr1cky-pw", "Tr1cky-pw", "<SECRET>"},
		{"sas signature", core.DocRunbook, "curl 'https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sig=q9ZbXfQ2%2BkLmN0pRsT4uVwXyZ1a2B3c4D5e6F7g8H9i%3D'", "q9ZbXfQ2", "<"},
		{"basic credentials", core.DocRunbook, "curl -H 'Authorization: Basic YWRtaW46czNjcjN0' https://api.internal/health", "YWRtaW46czNjcjN0", "<TOKEN>"},
		{"curl user password", core.DocRunbook, "curl -sf -u deploy:Qz8-vR2#x https://artifacts.internal/upload", "Qz8-vR2#x", "<SECRET>"},
		{"docker login password", core.DocRunbook, "docker login -u ci -p Mx7pQ2rT9z registry.internal", "Mx7pQ2rT9z", "<SECRET>"},
		{"docker login in markdown code", core.DocRunbook, "log in with `docker login -u ci -p Mx7pQ2rT9z registry.internal` first", "Mx7pQ2rT9z", "<SECRET>"},
		{"mysql password in markdown code", core.DocRunbook, "Use `mysql -u root -pRt4Qm8Zx2 shop` to look.", "Rt4Qm8Zx2", "<SECRET>"},
		{"curl user in a subshell", core.DocRunbook, "out=$(curl -u deploy:Qz8vR2x9 https://artifacts.internal)", "Qz8vR2x9", "<SECRET>"},
		{"go basic auth literal", core.CodeLogic, `req.SetBasicAuth("svc", "Xq7pLm2vRt9w")`, "Xq7pLm2vRt9w", `req.SetBasicAuth("svc", "<PASSWORD>")`},
		{"go smtp plain auth", core.CodeLogic, `auth := smtp.PlainAuth("", "mailer@corp.internal", "Sm7pPw4455q", "smtp.corp.internal")`, "Sm7pPw4455q", `"mailer@corp.internal", "<PASSWORD>", "smtp.corp.internal")`},
		{"python requests auth tuple", core.CodeLogic, "r = requests.get(url, auth=('svc', 'Rq9Pw3xT7k'), timeout=5)", "Rq9Pw3xT7k", "auth=('svc', '<"},
		{"python basic auth", core.CodeLogic, `session = aiohttp.ClientSession(auth=aiohttp.BasicAuth("svc", "Ah7Pw2Lm9q"))`, "Ah7Pw2Lm9q", `BasicAuth("svc", "<`},
		{"python ftp login", core.CodeLogic, `ftp.login("uploader", "Ft9Pw4Kd2m")`, "Ft9Pw4Kd2m", `ftp.login("uploader", "<PASSWORD>")`},
		{"csharp network credential", core.CodeLogic, `client.Credentials = new NetworkCredential(
    "mailer",
    "Nc8Pw5Qz1r");`, "Nc8Pw5Qz1r", "<PASSWORD>"},
		{"java password authentication", core.CodeLogic, `return new PasswordAuthentication("svc", "Ja5Pw8Wn3v".toCharArray());`, "Ja5Pw8Wn3v", `"<PASSWORD>".toCharArray()`},
		{"env default in python", core.CodeLogic, `SECRET_KEY = os.getenv("SECRET_KEY", "dj4ngo-Qx81zz77")`, "dj4ngo-Qx81zz77", `os.getenv("SECRET_KEY", "<SECRET>")`},
		{"setting default", core.CodeLogic, `app_secret = config.get("app.secret", "Cf9Zz8Qx1")`, "Cf9Zz8Qx1", `"<SECRET>"`},
		{"env default in ts", core.CodeLogic, `const sessionSecret = process.env.SESSION_SECRET ?? "s3ss-Qx81zz";`, "s3ss-Qx81zz", `?? "<SECRET>"`},
		{"kubectl literal", core.DocRunbook, "kubectl create secret generic db --from-literal=password=Kl7Pw2xQ9 -n shop", "Kl7Pw2xQ9", "--from-literal=password=<SECRET>"},
		{"redis-cli password", core.DocRunbook, "redis-cli -h cache -a Rc5Pw8vT2 ping", "Rc5Pw8vT2", "-a <SECRET>"},
		{"mongosh password", core.DocRunbook, `mongosh "mongodb://admin@mongo" -p Ms4Pw9kL1`, "Ms4Pw9kL1", "-p <SECRET>"},
		{"sqlcmd password", core.DocRunbook, `sqlcmd -S sql -U sa -P Sq3Pw7nB5 -Q "select 1"`, "Sq3Pw7nB5", "-P <SECRET>"},
		{"az login password", core.DocRunbook, "az login -u ci@corp.internal -p Az6Pw1hJ8", "Az6Pw1hJ8", "-p <SECRET>"},
		{"maven settings password", core.CodeConfig, "<server>\n  <id>internal</id>\n  <username>deployer</username>\n  <password>Mv5Pw7tQ3</password>\n</server>", "Mv5Pw7tQ3", "<password><SECRET></password>"},
		{"nuget clear text password", core.CodeConfig, `<add key="ClearTextPassword" value="Ng3Pw8rW1" />`, "Ng3Pw8rW1", `value="<SECRET>"`},
		{"appsettings add key", core.CodeConfig, `<appSettings><add key="SmtpPassword" value="Ap2Pw9kZ4"/></appSettings>`, "Ap2Pw9kZ4", `value="<SECRET>"`},
		{"java setter", core.CodeLogic, `ds.setPassword("Jv7SetPw2x");`, "Jv7SetPw2x", `setPassword("<SECRET>")`},
		{"builder", core.CodeLogic, `Client.builder().username("svc").password("Jv9BldPw4z").build();`, "Jv9BldPw4z", `password("<SECRET>")`},
		{"properties put", core.CodeLogic, `props.put("password", "Jv3PutPw8m");`, "Jv3PutPw8m", `"password", "<SECRET>"`},
		{"system property", core.CodeLogic, `System.setProperty("javax.net.ssl.keyStorePassword", "Jv5SysPw1c");`, "Jv5SysPw1c", `"<SECRET>"`},
		{"go setenv in a test", core.CodeLogic, `t.Setenv("DB_PASSWORD", "Go4EnvPw7k")`, "Go4EnvPw7k", `"DB_PASSWORD", "<SECRET>"`},
		{"jwt sign", core.CodeLogic, `const token = jwt.sign({ sub: user.id }, 'Js8JwtSec3h', { expiresIn: '1h' });`, "Js8JwtSec3h", `'<SECRET>'`},
		{"hmac key", core.CodeLogic, `const mac = crypto.createHmac('sha256', 'Js6HmacK2p').update(body)`, "Js6HmacK2p", `'sha256', '<SECRET>'`},
		{"python jwt encode", core.CodeLogic, `token = jwt.encode({"sub": uid}, "Py4JwtSec7k", algorithm="HS256")`, "Py4JwtSec7k", `"<SECRET>", algorithm`},
		{"python hmac bytes", core.CodeLogic, `mac = hmac.new(b"Py2HmacK9v", msg, hashlib.sha256)`, "Py2HmacK9v", `b"<SECRET>"`},
		{"go signed string", core.CodeLogic, `return t.SignedString([]byte("Go5JwtKey2n"))`, "Go5JwtKey2n", `[]byte("<SECRET>")`},
		{"csharp signing key", core.CodeLogic, `var key = new SymmetricSecurityKey(Encoding.UTF8.GetBytes("Cs9JwtKey4v"));`, "Cs9JwtKey4v", `GetBytes("<SECRET>")`},
		{"netrc line echoed", core.CodeDeploy, `RUN echo "machine github.com login ci password Nr5Pw8tK2" > /root/.netrc`, "Nr5Pw8tK2", "password <SECRET>"},
		{"aws configure set", core.DocRunbook, "aws configure set aws_secret_access_key Aw8Sec3jN5q", "Aw8Sec3jN5q", "aws_secret_access_key <SECRET>"},
		{"npm config set token", core.DocRunbook, "npm config set //registry.corp.internal/:_authToken Np4Tok7wQ2", "Np4Tok7wQ2", "_authToken <SECRET>"},
		{"gh secret set", core.DocRunbook, `gh secret set DEPLOY_KEY --body "Gh6Sec2vB9"`, "Gh6Sec2vB9", `--body "<SECRET>"`},
		{"echo into docker login", core.DocRunbook, `echo "Ho9Pw2wK4" | docker login --username ci --password-stdin registry.internal`, "Ho9Pw2wK4", `echo "<SECRET>"`},
		{"pw in chat", core.ConvoSlack, "pw: Vp7k2xQ9 for the vendor portal", "Vp7k2xQ9", "pw: <SECRET>"},
		{"creds in chat", core.ConvoSlack, "the creds are admin / Cr4n8mQ2! until Friday", "Cr4n8mQ2!", "admin / <SECRET>"},
		{"use as the password", core.DocRunbook, "use `Su3rPw9qZ` as the password for the staging box", "Su3rPw9qZ", "`<SECRET>` as the password"},
		{"password then value", core.ConvoSlack, "login admin, password Lc2mPw8xR", "Lc2mPw8xR", "password <SECRET>"},
		{"password with an arrow", core.DocRunbook, "Password for jenkins -> Jk6hPw1vT", "Jk6hPw1vT", "-> <SECRET>"},
		{"door pin", core.ConvoSlack, "PIN 4821 for the server room", "4821", "PIN <SECRET>"},
		{"php define", core.CodeConfig, "define( 'DB_PASSWORD', 'Wp4Pw9kD2' );", "Wp4Pw9kD2", "'DB_PASSWORD', '<SECRET>'"},
		{"curl in a jenkins step", core.CodeDeploy, `sh "curl -u admin:Jc3nPw8qZ https://nexus.internal/upload"`, "Jc3nPw8qZ", "<"},
		{"docker login in a quoted step", core.CodeDeploy, `sh 'docker login -u ci -p Jd5tPw2wQ registry.internal'`, "Jd5tPw2wQ", "-p <SECRET>"},
		{"mysql in a quoted step", core.CodeDeploy, `sh "mysql -u root -pJm7qPw4zX shop < schema.sql"`, "Jm7qPw4zX", "-p<SECRET>"},
		{"password flag in args", core.CodeDeploy, `args: ["--password=Ka2xPw7eQ"]`, "Ka2xPw7eQ", `"--password=<SECRET>"`},
		{"mysql argument list", core.CodeLogic, `subprocess.run(["mysql", "-u", "root", "-pPl6vPw1cX", "shop"])`, "Pl6vPw1cX", `"-p<SECRET>"`},
		{"card in slack", core.ConvoSlack, "the test charge used 4111 1111 1111 1111 by mistake", "4111 1111 1111 1111", "<CARD_1>"},
	}
	g := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc, err := g.Clean(chunk(tt.corpus, tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(cc.Text(), tt.secret) {
				t.Errorf("Clean(%q) = %q, still holds %q", tt.in, cc.Text(), tt.secret)
			}
			if !strings.Contains(cc.Text(), tt.want) {
				t.Errorf("Clean(%q) = %q, want placeholder %s", tt.in, cc.Text(), tt.want)
			}
			a := cc.Audit()
			if a == nil || !a.Scrubbed || a.SecretsFound+a.EntitiesFound == 0 || !cc.Scrubbed() {
				t.Errorf("Clean(%q) audit = %+v, want a scrubbed audit", tt.in, a)
			}
		})
	}
}

func TestCleanLeavesOrdinaryTextAlone(t *testing.T) {
	tests := []struct {
		name   string
		corpus core.CorpusType
		in     string
	}{
		{"go env read", core.CodeLogic, `password := os.Getenv("DB_PASSWORD")`},
		{"go call", core.CodeLogic, `secret, err := vault.ReadSecret(ctx, "payments/stripe")`},
		{"python request field", core.CodeLogic, `password = request.form["password"]`},
		{"ts config ref", core.CodeLogic, `const apiKey = process.env.CATALOG_API_KEY;`},
		{"k8s secret ref", core.CodeDeploy, "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: shopdb\n      key: password\n"},
		{"compose var", core.CodeDeploy, "DATABASE_URL: postgres://shop:${DB_PASSWORD}@postgres:5432/shopdb"},
		{"helm value", core.CodeDeploy, "password: {{ .Values.db.password }}"},
		{"email in code is not pii", core.CodeLogic, `const from = "orders@acme-shop.io"`},
		{"example email in docs", core.DocRunbook, "write to oncall@example.com"},
		{"slack ts is not a phone", core.ConvoSlack, "ts 1712345678.123456 thread 1712345600.000100"},
		{"version numbers", core.DocReadme, "upgrade from 1.24.3 to 1.25.0 on 2024-05-01"},
		{"port list", core.CodeDeploy, "ports: [8080, 9090, 5432]"},
		{"uuid", core.ConvoSlack, "order 3f2b6c1e-9a4d-4c55-8f7e-0d1b2a3c4d5e failed"},
		{"password doc prose", core.DocRunbook, "Rotate the password in Vault, then restart the pods."},
		{"k8s tls secret name", core.CodeDeploy, "  tls:\n    - hosts: [shop.example.com]\n      secretName: shop-tls-cert\n"},
		{"helm existing secret", core.CodeDeploy, "auth:\n  existingSecret: shopdb-credentials\n"},
		{"secret arn", core.CodeDeploy, `db_secret_arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:shopdb"`},
		{"password file", core.CodeConfig, "POSTGRES_PASSWORD_FILE=/run/secrets/pg_password"},
		// Messages, key names, placeholders, version pins and workflow
		// keys are not secrets (issue 17's false positives).
		{"error message", core.CodeLogic, `ModelState.AddModelError(string.Empty, "Invalid username or password");`},
		{"message assigned", core.CodeLogic, `var msg = "Password must contain at least 8 characters";`},
		{"key name as value", core.CodeLogic, `public const string AccessToken = "access_token";`},
		{"key name in python", core.CodeLogic, `REFRESH_TOKEN_KEY = "refresh_token"`},
		{"version pin", core.CodeConfig, "secretstorage==3.5.0\nkeyring==24.3.0"},
		{"workflow secrets", core.CodeDeploy, "env:\n  DOCKER_USERNAME: ${{ secrets.DOCKER_USERNAME }}\n  DOCKER_PASSWORD: ${{ secrets.DOCKER_PASSWORD }}\n"},
		{"token type", core.CodeLogic, `token_type = "Bearer"`},
		{"comparison", core.CodeLogic, `if password == "" { return errEmpty }`},
		{"length constant", core.CodeLogic, `const PASSWORD_MIN_LENGTH = 8`},
		{"flag with description", core.CodeLogic, `password := flag.String("password", "", "database password")`},
		{"header name", core.CodeLogic, `const apiKeyHeader = "X-Api-Key"`},
		{"env read in python", core.CodeLogic, `SECRET_KEY = os.environ["SECRET_KEY"]`},
		{"empty helm value", core.CodeDeploy, "auth:\n  password: \"\"\n  username: shop\n"},
		{"auth scheme", core.CodeDeploy, "auth: basic\n"},
		{"bearer in prose", core.DocRunbook, "Send the bearer token from the login response in every request."},
		{"password prose", core.DocRunbook, "The password is stored in Vault; ask #platform for access."},
		{"log time", core.ConvoSlack, "I0326 22:57:06.074105  1271 exec.cpp:134] Version: 0.27.0"},
		{"hash with digits", core.DocRunbook, "error: refs/keep-around/0123456789abcdef0123456789abcdef01234567: invalid sha1 pointer"},
		{"query ids", core.DocRunbook, "|{queryid=\"-2309322950358119582\"}|0.4111111111111111|\nWHERE queryid IN ('8726813440039762943', '2641605326964226569')"},
		{"sar header date", core.DocRunbook, "Linux 4.15.0-1047-gcp (patroni-01-db-gprd) \t07/07/2020 \t_x86_64_\t(96 CPU)"},
		{"example digits", core.DocRunbook, "not the shortened one (`0123456789`)"},
		{"git remote", core.DocRunbook, "git clone git@gitlab.com:gitlab-com/runbooks.git"},
		{"id in csv", core.DocRunbook, "queryid 388151056235919956,1190872,1,1,3"},
		{"pydantic field", core.CodeLogic, `password: str = Field(..., min_length=8)`},
		{"basic auth from variables", core.CodeLogic, `req.SetBasicAuth(cfg.User, cfg.Password)`},
		{"basic auth from env", core.CodeLogic, `auth = HTTPBasicAuth(os.environ["SVC_USER"], os.environ["SVC_PASSWORD"])`},
		{"login with a variable", core.CodeLogic, `await page.login("admin", password)`},
		{"login of one argument", core.CodeLogic, `cy.login("customer-with-orders")`},
		{"credential from a call", core.CodeLogic, `var cred = new NetworkCredential(user, GetPassword("smtp"));`},
		{"login prose", core.DocReadme, "Call login(user, password) before any other request."},
		{"map of settings", core.CodeLogic, `m := map[string]string{"clientSecret": appSecret, "endpoint": endpoint, "databaseName": databaseName}`},
		{"key name argument", core.CodeLogic, `accountKey = valueFromConnectionString(connectionString, "AccountKey")`},
		{"flag after a flag", core.CodeLogic, `err := run("u", "--random-password", "--access-token")`},
		{"flag after a secret-named field", core.CodeLogic, `assert.Equal(t, check{MustChangePassword: true}, createCheck("u2", "--admin"))`},
		{"annotation key", core.CodeLogic, `KeyAPITokenSecret = "dapr.io/api-token-secret" /* #nosec */`},
		{"key names in a const list", core.CodeLogic, `const testSecretKey, fromSecretName, fromSecretKey = "secretKey", "secretName", "secretKey"`},
		{"flags in an error message", core.CodeLogic, `return errors.New("cannot use --client-password with --embedded")`},
		{"secret store named in notes", core.DocReadme, "- Secret store: Hashicorp Vault [1926](https://github.com/acme/contrib/issues/1926)"},
		{"secret's namespaced name in a status", core.CodeDeploy, "        message: 'failed to locate TLS secret for client auth: gateway-system/client-auth-not-found'"},
		{"secret's name in a sentence", core.CodeDeploy, "      - message: |\n          secret for client auth: gateway-system/client-auth-not-found specified in GatewayProxy\n"},
		{"secret's name before a line break", core.CodeDeploy, "      - message: 'failed to locate TLS\n          secret for client auth: gateway-system/client-auth-not-found specified\n          in GatewayProxy gateway-system/test.'\n"},
		{"xml element that names no secret", core.CodeConfig, "<server>\n  <id>internal</id>\n  <username>deployer</username>\n</server>"},
		{"xml secret element with a reference", core.CodeConfig, "<password>${env.MAVEN_PASSWORD}</password>"},
		{"add key of a plain setting", core.CodeConfig, `<add key="PasswordMinLength" value="12" />`},
		{"mongosh port", core.DocRunbook, "mongosh --host mongo --port 27017"},
		{"redis-cli without a password", core.DocRunbook, "redis-cli -h cache -p 6379 ping"},
		{"flag pair that names no secret", core.DocRunbook, "kubectl create configmap app --from-literal=LOG_LEVEL=debug"},
		{"getter of a secret", core.CodeLogic, `pw := cfg.GetPassword("smtp-relay")`},
		{"token made for a name", core.CodeLogic, `tok, err := createToken("ci-runner")`},
		{"setter from a variable", core.CodeLogic, `ds.setPassword(System.getenv("DB_PASSWORD"));`},
		{"put of a plain setting", core.CodeLogic, `props.put("user", "orders-service");`},
		{"setenv of a plain setting", core.CodeLogic, `t.Setenv("LOG_LEVEL", "debug-verbose")`},
		{"jwt sign with a variable key", core.CodeLogic, `const token = jwt.sign(payload, process.env.JWT_SECRET);`},
		{"hmac with a key variable", core.CodeLogic, `mac := hmac.New(sha256.New, key)`},
		{"setter of a secret's name", core.CodeLogic, `builder.withSecretName("orders-db-credentials")`},
		{"echo a variable into docker login", core.DocRunbook, `echo "$REGISTRY_PASSWORD" | docker login --username ci --password-stdin registry.internal`},
		{"config set of a plain setting", core.DocRunbook, "aws configure set region eu-west-1"},
		{"netrc word in prose", core.DocReadme, "Put a machine entry in ~/.netrc for the registry."},
		{"password reset prose", core.DocRunbook, "Send the password reset link, then use the token as the password once."},
		{"password manager", core.ConvoSlack, "the password manager 1Password keeps it; login with SSO"},
		{"pin a version", core.DocRunbook, "pin 2024 images only after the release; the PIN pad is broken"},
		{"login path", core.DocRunbook, "open /login: user/admin pages follow"},
		{"login screenshot", core.DocReadme, "| [![Login](/docs/img/login.png)](/docs/img/login.png) | [![Home](/docs/img/home.png)](/docs/img/home.png) |"},
		{"login url", core.DocRunbook, "login: https://sso.corp.internal/realms/ops"},
		{"title case heading", core.DocReadme, "### HTTPS Username And Password Credential\n\n* Add Password Algorithm option to install page (#14701)"},
		{"php define of a setting", core.CodeConfig, "define( 'DB_NAME', 'wordpress_shop' );"},
		{"flag joined to a variable", core.CodeLogic, `args = append(args, "--etcd-client-password="+*opts.clientPassword)`},
		{"address argument", core.CodeLogic, `token := signJWT(t, privateKey, "spiffe://cluster.local/ns/default/sa/orders")`},
	}
	g := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc, err := g.Clean(chunk(tt.corpus, tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.in, cc.Text()); d != "" {
				t.Errorf("Clean changed ordinary text (-want +got):\n%s", d)
			}
			if cc.Audit() != nil || cc.Scrubbed() {
				t.Errorf("Clean(%q) audit = %+v, want none", tt.in, cc.Audit())
			}
		})
	}
}

// TestCleanLeavesCommandsAndExpressionsAlone checks what reads as a
// secret only out of its file's syntax: command-line flags that are no
// credentials, Terraform expressions, names told in sentences.
func TestCleanLeavesCommandsAndExpressionsAlone(t *testing.T) {
	tests := []struct {
		name, lang string
		corpus     core.CorpusType
		in         string
	}{
		{"oc login user", "shell", core.DocRunbook, "oc login -u system:admin"},
		{"docker run port", "markdown", core.DocRunbook, "$ docker run -d --rm -v $(pwd):/profiles:ro -p 5000:5000 flamescope"},
		{"terraform reference", "hcl", core.CodeDeploy, "  token                  = data.google_client_config.default.access_token\n"},
		{"terraform for", "hcl", core.CodeDeploy, "  cloud_build_sas  = [for service in local.services : module.pipeline[service].sa]  # service accounts\n"},
		{"bearer test constant", "java", core.CodeLogic, `private static final String BEARER_TOKEN = "Bearer abc";`},
		{"upper placeholder", "php", core.CodeLogic, `'secret' => 'S0ME_SECRET',`},
		{"env prefix of a command", "markdown", core.DocRunbook, "$ OPS_API_TOKEN=secure-token MIGRATION_ENV=gprd-or-gstg ansible-playbook -i production/inventory.txt playbook.yml"},
		{"secret named in prose", "markdown", core.DocRunbook, "In this example, the secret is `metrics-client-certs` in the namespace `openshift-monitoring`."},
		{"basic in a title", "markdown", core.DocRunbook, "* [Kubernetes-Agent Basic Troubleshooting](../kas/kubernetes-agent-basic-troubleshooting.md)"},
		{"bearer in a title", "markdown", core.DocRunbook, "## Bearer Authentication"},
		{"configmap beside a secret", "yaml", core.CodeDeploy, "kind: ConfigMap\ndata:\n  LISTEN_ADDRESS: \"0.0.0.0\"\n  PARTITION_KEY: \"storeId\"\n---\nkind: Secret\ndata:\n  QUEUE_PASSWORD: \"{{ .Values.queuePassword | b64enc }}\"\n"},
		{"flag without value", "markdown", core.DocRunbook, "ssh db1 \"psql --password --host=localhost --username=$DB_USER --command 'SELECT 1;'\""},
		{"token query placeholder", "markdown", core.DocRunbook, "GET /api/v1/runs?token=$CI_JOB_TOKEN&ref=main"},
	}
	g := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := chunk(tt.corpus, tt.in)
			c.Language = tt.lang
			cc, err := g.Clean(c)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.in, cc.Text()); d != "" {
				t.Errorf("Clean changed ordinary text (-want +got):\n%s", d)
			}
		})
	}
}

// TestCleanSecretData checks that a Kubernetes Secret's credentials are
// masked and its user, database and address are kept, less the password
// an address carries.
func TestCleanSecretData(t *testing.T) {
	in := `apiVersion: v1
kind: Secret
metadata:
  name: members-db-config
type: Opaque
stringData:
  POSTGRES_DB: members-db
  POSTGRES_USER: members-admin
  POSTGRES_PASSWORD: m3mbers-pwd
  MEMBERS_DB_URI: postgresql://members-admin:m3mbers-pwd@members-db:5432/members-db
  SIGNING_SEED: 7f3a9c2e11
  JDBC_URL: jdbc:postgresql://invoices-sql:5432/invoices?user=invoices&password=1nvoices-pw!
data:
  DB_HOST: aW52b2ljZXMtc3Fs
  DB_URL: cG9zdGdyZXM6Ly91OnBAaDo1NDMyL2Q=
`
	c := chunk(core.CodeDeploy, in)
	c.Language = "yaml"
	cc, err := New(Options{}).Clean(c)
	if err != nil {
		t.Fatal(err)
	}
	got := cc.Text()
	for _, gone := range []string{"m3mbers-pwd", "7f3a9c2e11", "1nvoices-pw!", "cG9zdGdyZXM6Ly91OnBAaDo1NDMyL2Q="} {
		if strings.Contains(got, gone) {
			t.Errorf("Clean kept %q:\n%s", gone, got)
		}
	}
	for _, kept := range []string{"POSTGRES_DB: members-db", "POSTGRES_USER: members-admin", "@members-db:5432/members-db", "DB_HOST: aW52b2ljZXMtc3Fs", "?user=invoices&password="} {
		if !strings.Contains(got, kept) {
			t.Errorf("Clean lost %q:\n%s", kept, got)
		}
	}
}

func TestPlaceholdersConsistentWithinChunk(t *testing.T) {
	in := "bob@acme.io wrote to carol@acme.io; then bob@acme.io again"
	cc, err := New(Options{}).Clean(chunk(core.ConvoSlack, in))
	if err != nil {
		t.Fatal(err)
	}
	want := "<EMAIL_1> wrote to <EMAIL_2>; then <EMAIL_1> again"
	if cc.Text() != want {
		t.Errorf("Clean(%q) = %q, want %q", in, cc.Text(), want)
	}
	a := cc.Audit()
	if a.EntitiesFound != 2 || a.SecretsFound != 0 || !cmp.Equal(a.EntityTypes, []string{"EMAIL"}) || a.Tier != core.MaybeSensitive {
		t.Errorf("audit = %+v, want 2 EMAIL entities in tier maybe_sensitive", a)
	}
}

func TestCleanTierSkipsPIIForCleanSources(t *testing.T) {
	in := "maintainer: dev.lead@acme-corp.com"
	cc, _ := New(Options{}).Clean(chunk(core.DocReadme, in))
	if cc.Text() != in {
		t.Errorf("clean tier text changed: %q", cc.Text())
	}
}

func TestCleanRejectsBadChunks(t *testing.T) {
	g := New(Options{})
	if _, err := g.Clean(core.Chunk{Corpus: core.CodeLogic, Text: "x"}); err == nil {
		t.Error("Clean of a chunk without id succeeded")
	}
	if _, err := g.Clean(core.Chunk{ID: "x", Corpus: "NOPE", Text: "x"}); err == nil {
		t.Error("Clean of a chunk with unknown corpus succeeded")
	}
	var zero CleanChunk
	if zero.Valid() {
		t.Error("zero CleanChunk is valid")
	}
}

func BenchmarkClean(b *testing.B) {
	text := strings.Repeat("func handle(w http.ResponseWriter, r *http.Request) {\n\tuser := r.URL.Query().Get(\"user\")\n\tlog.Printf(\"profile for %s\", user)\n}\n", 40)
	for _, corpus := range []core.CorpusType{core.CodeLogic, core.ConvoSlack} {
		b.Run(string(corpus), func(b *testing.B) {
			g := New(Options{})
			c := chunk(corpus, text)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := g.Clean(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCleanCode scrubs realistic code (few secrets) — the crawl's
// common case.
func BenchmarkCleanCode(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 64<<10; i++ {
		fmt.Fprintf(&sb, "func (s *Server) handleGetUserProfile%d(w http.ResponseWriter, r *http.Request) {\n", i)
		sb.WriteString("\tkey := r.PathValue(\"id\")\n\tprofile, err := s.accounts.Profile(r.Context(), key)\n")
		sb.WriteString("\tif err != nil {\n\t\thttp.Error(w, \"accounts service unavailable: \"+err.Error(), 502)\n\t\treturn\n\t}\n")
		sb.WriteString("\t// token and password handling lives in the session middleware\n\tjson.NewEncoder(w).Encode(profile)\n}\n")
	}
	text := sb.String()
	for _, corpus := range []core.CorpusType{core.CodeLogic, core.DocRunbook} {
		b.Run(string(corpus), func(b *testing.B) {
			g := New(Options{})
			c := chunk(corpus, text)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := g.Clean(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestCleanScrubsCallTargets(t *testing.T) {
	c := chunk(core.CodeLogic, `db := sql.Open("pgx", "postgres://shop:Sup3rS3cret@db:5432/shop")`)
	c.Calls = []core.Call{{Kind: core.CallDB, System: "pgx", Target: "postgres://shop:Sup3rS3cret@db:5432/shop", Text: c.Text}}
	c.CallsOut = []string{"db pgx postgres://shop:Sup3rS3cret@db:5432/shop"}
	cc, err := New(Options{}).Clean(c)
	if err != nil {
		t.Fatal(err)
	}
	got := cc.Chunk()
	for _, s := range []string{got.Text, got.Calls[0].Target, got.Calls[0].Text, got.CallsOut[0]} {
		if strings.Contains(s, "Sup3rS3cret") {
			t.Errorf("password survived in %q", s)
		}
	}
	if !strings.Contains(got.Calls[0].Target, "db:5432/shop") {
		t.Errorf("target lost its host: %q", got.Calls[0].Target)
	}
	if c.Calls[0].Target != "postgres://shop:Sup3rS3cret@db:5432/shop" {
		t.Error("Clean modified the caller's calls slice")
	}
}

// TestCleanWordPasswordKeepsNames: a development database's password that
// is a plain word ("postgres") is replaced where it is the password, not
// wherever the word is: the scheme, user and image keep it, so the
// compose service's DSN still names its database.
func TestCleanWordPasswordKeepsNames(t *testing.T) {
	text := "services:\n  api:\n    environment:\n      DATABASE_URL: postgres://postgres:postgres@db:5432/orders\n" +
		"  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: postgres\n"
	c := chunk(core.CodeDeploy, text)
	c.Language = "yaml"
	c.Resources = []core.Resource{
		{Kind: core.ResourceCompose, Name: "api", Env: []core.EnvVar{{Name: "DATABASE_URL", Value: "postgres://postgres:postgres@db:5432/orders"}}},
		{Kind: core.ResourceCompose, Name: "db", Images: []string{"postgres:16"}, Env: []core.EnvVar{{Name: "POSTGRES_PASSWORD", Value: "postgres"}}},
	}
	cc, err := New(Options{}).Clean(c)
	if err != nil {
		t.Fatal(err)
	}
	got := cc.Chunk()
	if want := "postgres://postgres:<PASSWORD>@db:5432/orders"; got.Resources[0].Env[0].Value != want {
		t.Errorf("DSN = %q, want %q", got.Resources[0].Env[0].Value, want)
	}
	if v := got.Resources[1].Env[0].Value; v == "postgres" {
		t.Errorf("POSTGRES_PASSWORD = %q, want it replaced", v)
	}
	if !strings.Contains(got.Text, "DATABASE_URL: postgres://postgres:<PASSWORD>@db") || !strings.Contains(got.Text, "POSTGRES_PASSWORD: <SECRET>") {
		t.Errorf("text:\n%s", got.Text)
	}
}

// TestCleanSecretFoundLater: a secret only a later field shows to be one
// (a flag's value, read item by item from the command list in the
// metadata) is replaced in the text too.
func TestCleanSecretFoundLater(t *testing.T) {
	c := chunk(core.CodeDeploy, "services:\n  web:\n    command: [\"--redis-password=Qa3FlagPw99\", \"--port\", \"8080\"]\n")
	c.Language = "yaml"
	c.Meta = map[string]string{"command": "--redis-password=Qa3FlagPw99, --port, 8080"}
	cc, err := New(Options{}).Clean(c)
	if err != nil {
		t.Fatal(err)
	}
	got := cc.Chunk()
	if strings.Contains(got.Text, "Qa3FlagPw99") || strings.Contains(got.Meta["command"], "Qa3FlagPw99") {
		t.Errorf("the flag's password survived: text %q, meta %q", got.Text, got.Meta["command"])
	}
	if !strings.Contains(got.Text, `"--port", "8080"`) {
		t.Errorf("text lost the rest: %q", got.Text)
	}
}

// TestCleanResourceFlags: a compose command's flag that carries a secret
// (core.Resource.Flags) loses it as an environment variable would; an
// address flag is kept.
func TestCleanResourceFlags(t *testing.T) {
	c := chunk(core.CodeDeploy, "services:\n  relay:\n    command: relay --db-password=Zt7FlagPw42 --upstream=vault:8200\n")
	c.Language = "yaml"
	c.Resources = []core.Resource{{Kind: core.ResourceCompose, Name: "relay", Service: "relay",
		Flags: []core.EnvVar{{Name: "db-password", Value: "Zt7FlagPw42"}, {Name: "upstream", Value: "vault:8200"}}}}
	cc, err := New(Options{}).Clean(c)
	if err != nil {
		t.Fatal(err)
	}
	got := cc.Chunk()
	if f := got.Resources[0].Flags; f[0].Value == "Zt7FlagPw42" || f[1].Value != "vault:8200" {
		t.Errorf("flags %+v: want the password gone and the address kept", f)
	}
	if strings.Contains(got.Text, "Zt7FlagPw42") {
		t.Errorf("text keeps the password: %q", got.Text)
	}
	if c.Resources[0].Flags[0].Value != "Zt7FlagPw42" {
		t.Error("Clean changed its input's flags")
	}
}

// TestCleanMetaLists checks that a list of env values in metadata loses
// its secrets item by item and keeps the rest.
func TestCleanMetaLists(t *testing.T) {
	c := chunk(core.CodeDeploy, "command: [\"--username\", \"username\", \"--password\", \"password\"]\n")
	c.Language = "yaml"
	c.Meta = map[string]string{
		"env":     "QUEUE_PASSWORD=password, QUEUE_NAME=orders, DB_PASSWORD=Xk2-ab9Q, API_VERSION=2025-04-01-preview, ENDPOINT=",
		"command": "--username username --password password",
	}
	cc, err := New(Options{}).Clean(c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"env":     "QUEUE_PASSWORD=password, QUEUE_NAME=orders, DB_PASSWORD=<SECRET>, API_VERSION=2025-04-01-preview, ENDPOINT=",
		"command": "--username username --password password",
	}
	if d := cmp.Diff(want, cc.Chunk().Meta); d != "" {
		t.Errorf("Clean meta (-want +got):\n%s", d)
	}
	if a := cc.Audit(); a == nil || a.SecretsFound != 1 {
		t.Errorf("audit = %+v, want one secret", a)
	}
}

// TestCleanReplacesNUL: the gate admits only text every store can hold: a
// NUL (a Slack message's \u0000) becomes U+FFFD in the text, the metadata
// and the facts; the rest is kept.
func TestCleanReplacesNUL(t *testing.T) {
	g := New(Options{})
	c := core.Chunk{ID: "x", SourceURI: "s/#c/t", Corpus: core.ConvoSlack, Text: "a\x00b", Author: "al\x00ice",
		Meta: map[string]string{"topic": "fail\x00over"}, CallsOut: []string{"x\x00"}}
	cc, err := g.Clean(c)
	if err != nil {
		t.Fatal(err)
	}
	got := cc.Chunk()
	if got.Text != "a\uFFFDb" || got.Author != "al\uFFFDice" || got.Meta["topic"] != "fail\uFFFDover" || got.CallsOut[0] != "x\uFFFD" {
		t.Errorf("after the gate: %q %q %q %q", got.Text, got.Author, got.Meta["topic"], got.CallsOut)
	}
	if c.Text != "a\x00b" || c.Meta["topic"] != "fail\x00over" {
		t.Error("the gate changed the caller's chunk")
	}
}

// FuzzFindSecretArguments feeds arbitrary text to the reader of calls'
// arguments: it must not panic, and every span it returns must be inside
// the text, after the call's "(", with its kind.
func FuzzFindSecretArguments(f *testing.F) {
	for _, s := range []string{
		`req.SetBasicAuth("svc", "Xq7pLm2vRt9w")`,
		`smtp.PlainAuth("", "a@b", "pw12345", "host")`,
		"new NetworkCredential(\n \"u\",\n \"p4ssw0rd\");",
		`login("a", "b".toCharArray(), f(x, [1, 2]), {"k": "v"})`,
		`auth=("u", 'unterminated`,
		`BasicAuth(`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		spans, kinds := findSecretArguments(text, asciiLower(text))
		if len(kinds) != len(spans) {
			t.Fatalf("%d spans, %d kinds", len(spans), len(kinds))
		}
		for _, sp := range spans {
			if sp[0] < 0 || sp[1] > len(text) || sp[0] > sp[1] {
				t.Fatalf("span %v out of %d bytes", sp, len(text))
			}
			if i := strings.IndexByte(text, '('); i < 0 || sp[0] <= i {
				t.Fatalf("span %v before the first '(' of %q", sp, text)
			}
		}
	})
}

// TestCleanLiteralEndingInBackslash: a chunk that ends inside a string
// literal with a backslash (a file cut there) used to index past the
// text and panic, which stopped the whole crawl.
func TestCleanLiteralEndingInBackslash(t *testing.T) {
	for _, in := range []string{
		"package x\n\nvar password = \"abcdef\\",
		`req.SetBasicAuth("svc", "abc\`,
		`auth=("\`,
	} {
		c := chunk(core.CodeLogic, in)
		c.Language = "go"
		if _, err := New(Options{}).Clean(c); err != nil {
			t.Errorf("Clean(%q): %v", in, err)
		}
	}
}

// FuzzClean passes arbitrary text of each corpus type through the whole
// gate: it must not panic (a panic stopped the crawl), and what it
// returns must be valid UTF-8 when the input is.
func FuzzClean(f *testing.F) {
	for _, s := range []string{
		`cfg := aws.Config{AccessKey: "AKIAIOSFODNN7EXAMPLE"}`,
		"DATABASE_URL: postgres://shop:s3cr3tpw@postgres:5432/shopdb",
		"MYSQL_DSN: shop:Xk2ab9Qw7z@tcp(mysql:3306)/shop?parseTime=true",
		"- name: DB_PASSWORD\n  value: sup3rs3cret\n",
		"kind: Secret\nstringData:\n  password: hunter2hunter2\n",
		"curl -sf -u deploy:Qz8-vR2#x https://artifacts.internal/upload",
		"log in with `docker login -u ci -p Mx7pQ2rT9z registry.internal` first",
		`SECRET_KEY = os.getenv("SECRET_KEY", "dj4ngo-Qx81zz77")`,
		"Server=sql;Database=shop;User Id=sa;Password=Cs7;SqlPw99x;",
		"Alice: the password is hunter22, call me at +1 415-555-0134",
		"variable \"db_password\" {\n  default = \"Tf0Pw\\",
		"${mail.password:hunter2}",
		"public string RedisPassword { get; set; } = \"Rp9\";",
	} {
		f.Add(s, uint8(0))
	}
	corpora := []core.CorpusType{core.CodeLogic, core.CodeDeploy, core.CodeConfig, core.DocRunbook, core.ConvoSlack, core.ConvoTranscript, core.DocGoogle}
	langs := []string{"go", "yaml", "python", "markdown", "hcl", "csharp", ""}
	g := New(Options{IPs: true})
	f.Fuzz(func(t *testing.T, text string, kind uint8) {
		if text == "" {
			return
		}
		c := chunk(corpora[int(kind)%len(corpora)], text)
		c.Language = langs[int(kind/8)%len(langs)]
		cc, err := g.Clean(c)
		if err != nil {
			return // refused with an error, not a panic
		}
		if utf8.ValidString(text) && !utf8.ValidString(cc.Text()) {
			t.Fatalf("Clean(%q) = %q: not valid UTF-8", text, cc.Text())
		}
	})
}
