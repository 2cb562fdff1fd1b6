module github.com/nyaruka/phonenumbers

go 1.23.0

require (
	golang.org/x/text v0.23.0
	google.golang.org/protobuf v1.36.11
)
