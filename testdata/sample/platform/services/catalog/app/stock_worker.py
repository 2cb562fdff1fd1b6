"""Consumes orders.placed and takes ordered items out of stock.

Runs as its own Deployment (catalog-stock-worker) next to the API.
"""

import json
import logging
import os

from kafka import KafkaConsumer

from . import db

log = logging.getLogger("catalog.stock_worker")

TOPIC = "orders.placed"
GROUP_ID = "catalog-stock"


def handle(message: dict) -> None:
    for item in message.get("items", []):
        db.decrement_stock(item["productId"], item["quantity"])
    log.info("stock updated for order %s", message.get("order_id"))


def main() -> None:
    logging.basicConfig(level=logging.INFO)
    db.pool.open()
    consumer = KafkaConsumer(
        TOPIC,
        bootstrap_servers=os.environ.get("KAFKA_BROKERS", "kafka:9092").split(","),
        group_id=GROUP_ID,
        enable_auto_commit=False,
        value_deserializer=lambda v: json.loads(v.decode("utf-8")),
    )
    for record in consumer:
        try:
            handle(record.value)
            consumer.commit()
        except Exception:
            log.exception("could not apply order %s", record.value.get("order_id"))


if __name__ == "__main__":
    main()
