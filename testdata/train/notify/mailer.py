"""Sends order e-mails and text messages to customers."""

import smtplib
from email.message import EmailMessage


class Mailer:
    """Delivers rendered e-mails through the company's SMTP relay."""

    def __init__(self, host, port=587, sender="orders@example.com"):
        self.host = host
        self.port = port
        self.sender = sender

    def send_receipt(self, to, order_id, total):
        """Email the customer a receipt with the order number and the amount paid."""
        msg = EmailMessage()
        msg["From"] = self.sender
        msg["To"] = to
        msg["Subject"] = f"Your receipt for order {order_id}"
        msg.set_content(f"We received {total}. Thank you for shopping with us.")
        self._deliver(msg)

    def send_shipping_notice(self, to, order_id, tracking):
        """Tell the customer their parcel left the warehouse and how to track it."""
        msg = EmailMessage()
        msg["From"] = self.sender
        msg["To"] = to
        msg["Subject"] = f"Order {order_id} is on its way"
        msg.set_content(f"Track it with {tracking}.")
        self._deliver(msg)

    def _deliver(self, msg):
        """Open a TLS connection to the relay and hand the message over."""
        with smtplib.SMTP(self.host, self.port) as smtp:
            smtp.starttls()
            smtp.send_message(msg)


def render_template(name, **values):
    """Fill the named message template with the given values and return the text."""
    with open(f"templates/{name}.txt") as fh:
        return fh.read().format(**values)
