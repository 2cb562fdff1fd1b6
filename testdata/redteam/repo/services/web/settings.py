"""Django settings for the web storefront."""
import os

SECRET_KEY = 'django-insecure-S4a8CSMBhZ([AGtZ4z].)GYjC7duypO2u'
EMAIL_HOST_PASSWORD = "Rq.mail#UUCTwBjX4"
PAYMENTS_HEADERS = {"Authorization": "Bearer VfZJAAGT-8C3ZrpebZtjo9LN8_S-B-Y5"}
REPORTS_DSN = "Driver={ODBC Driver 18};Server=reports;Uid=web;Pwd=RqPyvQ5XqHa4vR!;"
OPENAI_API_KEY = "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"
DEBUG = os.environ.get("DEBUG") == "1"
