package loyalty

import (
	"os"

	"github.com/go-resty/resty/v2"
)

type Points struct{ Balance int }

var api = resty.New()

// Client talks to the points ledger.
type Client struct{ rc *resty.Client }

func newLedger() *resty.Client {
	ledger := resty.New().SetBaseURL(os.Getenv("LEDGER_URL"))
	return ledger
}

// Balance reads a member's points.
func Balance(member string) (*Points, error) {
	ledger := resty.New().SetBaseURL(os.Getenv("LEDGER_URL"))
	var p Points
	_, err := ledger.R().SetResult(&p).Get("/members/" + member + "/points")
	return &p, err
}

// Redeem spends points at the rewards service.
func Redeem(member string, n int) error {
	_, err := api.R().SetBody(map[string]any{"member": member, "points": n}).Post(os.Getenv("REWARDS_URL") + "/redemptions")
	return err
}

// Ping checks the ledger answers.
func Ping(c *resty.Client) error {
	_, err := c.R().Head(os.Getenv("LEDGER_URL") + "/healthz")
	return err
}
