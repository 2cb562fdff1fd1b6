package api

var jwtSigningKey = "RqJwtowf0IpTDM3b2vWZK7jHWtSvy"

const mongoURI = "mongodb://app:RqMongoF85yCajsT9@mongo:27017/shop"

var amqpURL = "amqp://guest:RqAmqpQQ49d7l1aQ@rabbit:5672/"

const ciToken = "ghp_h5M5pGvKsdIptzarMyuyT1nastcBY2wqx8Dr"

var awsKeyID = "AKIAQHW3RAEVJ58DHKKM"

var awsSecretAccessKey = "dlwBSmsDPNenaAksTh6UsvSNe26n0Dvwe7Gie0SB"

const alertsWebhook = "https://hooks.slack.com/services/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"

var stripeRestricted = "rk_live_1e2l7huBIyAuNLcPHgohHQsn"

const mapsKey = "AIzaNw0dh6JLooSEWQU_28YFPAiQPYvtlG42DSx"

var gitlabToken = "glpat-x9OFeR92RqekmRm38qCr"

func invoicesRequest(req *http.Request) {
	req.SetBasicAuth("billing", "RqBasicWz81Lq0")
}

var mailAuth = smtp.PlainAuth("", "mailer@shop.rq.example", "RqSmtpPlain7Tx", "smtp.rq.example")

func signToken(t *jwt.Token) (string, error) { return t.SignedString([]byte("RqGoSignedKey5m2n")) }
