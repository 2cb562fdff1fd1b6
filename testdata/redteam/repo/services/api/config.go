package api

import "net/http"

// Credentials the API was written with before the vault existed.
const dbPassword = `Rq7#x;k,rUnjfw)z\sSQV TcVP3`

var legacyAdminPassword = "Rq8(wozSqE[k]wcDlu.BrXnOD"

const anthropicKey = "sk-ant-api03-CUq3dJgItnDbw32IENMG-L9Wc988FRP-v6GNkIHjc5oXyctTVz0MR1aNf_6yK1yKPTaQfWWvS1-Hhx4lR7BAgF7SC66b3AA"

var openAIKey = "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"

const ordersConn = "Server=tcp:orders-db.example.net,1433;Database=orders;User Id=api;Password=Rq9Pa(ss).qfzZNPsy;Encrypt=true;"

var sendgridKey = "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"

const twilioAccountSID = "AC68c625340a0cbae9e556dbba573ec464"

var cacheURL = "redis://:RqRedisO9U5HUWfZx@cache:6379/0"

func callBilling(req *http.Request) {
	req.Header.Set("Authorization", "Bearer rq6ncM8e-nzNsYgZB9EjxV5BqWJ8IMtRYMHRk7DezH")
}

const blobConn = "DefaultEndpointsProtocol=https;AccountName=rqinvoices;AccountKey=aiv/EAUrZAzKdkz0vppdRLW6BGXC4H4OdbxpFfcu9AHqt9Anhr3b9r+u4Bqiu3+g;EndpointSuffix=core.windows.net"
