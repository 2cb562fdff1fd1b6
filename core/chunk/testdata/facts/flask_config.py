"""A Flask app that keeps its backends' addresses in app.config."""
import os

import requests
from flask import Flask


def create_app():
    app = Flask(__name__)

    @app.route("/checkout", methods=["POST"])
    def checkout():
        quote = requests.get(url=app.config["QUOTES_URI"], timeout=app.config["TIMEOUT"])
        return requests.post(f'{app.config["INVOICES_URI"]}/{quote.json()["id"]}').json()

    app.config["QUOTES_URI"] = "http://{}/quotes".format(os.environ.get("QUOTES_ADDR"))
    app.config['INVOICES_URI'] = 'http://%s/invoices' % os.getenv("INVOICES_ADDR", "invoices:8080")
    app.config["TIMEOUT"] = int(os.getenv("TIMEOUT", "4"))
    return app


def unset(app):
    return requests.get(url=app.config["AUDIT_URI"])
