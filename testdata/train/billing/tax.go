package billing

import "math"

// VATRate returns the value added tax rate of a country code in percent.
func VATRate(country string) float64 {
	switch country {
	case "DE":
		return 19
	case "FR":
		return 20
	case "GB":
		return 20
	}
	return 0
}

// GrossCents adds the country's tax to a net amount, rounding half up.
func GrossCents(net int64, country string) int64 {
	return int64(math.Round(float64(net) * (1 + VATRate(country)/100)))
}

// FormatAmount renders cents as a decimal string with the currency symbol.
func FormatAmount(cents int64, symbol string) string {
	return symbol + itoa(cents/100) + "." + pad2(cents%100)
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

func pad2(n int64) string {
	if n < 10 {
		return "0" + itoa(n)
	}
	return itoa(n)
}
