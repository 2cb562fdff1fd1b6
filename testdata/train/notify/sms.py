import urllib.request
import json


def send_sms(gateway_url, phone, text):
    """Post a short text message to the SMS gateway and return its message id."""
    body = json.dumps({"to": phone, "text": text}).encode()
    req = urllib.request.Request(gateway_url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.load(resp)["id"]


def normalise_number(phone, default_country="44"):
    """Turn a local phone number into the international format the gateway wants."""
    digits = "".join(c for c in phone if c.isdigit())
    if digits.startswith("0"):
        digits = default_country + digits[1:]
    return "+" + digits


def opted_out(preferences, customer_id):
    """Report whether the customer asked not to receive any text messages."""
    return preferences.get(customer_id, {}).get("sms") is False
