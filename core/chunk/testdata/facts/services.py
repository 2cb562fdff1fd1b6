"""Fixture: Python HTTP clients, queues, databases and web frameworks."""

import os

import boto3
import grpc
import httpx
import pika
import redis
import requests
from fastapi import APIRouter, FastAPI
from flask import Blueprint

from .gen import inventory_pb2_grpc

BILLING_URL = os.environ.get("BILLING_URL", "http://billing:9000")

app = FastAPI()
orders = APIRouter(prefix="/orders")
bp = Blueprint("admin", __name__, url_prefix="/admin")
api = httpx.Client(base_url=os.environ["LEDGER_URL"])


@orders.get("/{order_id}")
async def get_order(order_id: str):
    invoice = requests.get(f"{BILLING_URL}/invoices/{order_id}", timeout=2)
    entries = api.get("/entries", params={"order": order_id})
    return {"invoice": invoice.json(), "entries": entries.json()}


@orders.post("/{order_id}/cancel")
async def cancel(order_id: str):
    requests.request("DELETE", BILLING_URL + "/invoices/" + order_id)
    channel = pika.BlockingConnection().channel()
    channel.basic_publish(exchange="", routing_key="orders.cancelled", body=order_id)
    sqs = boto3.client("sqs")
    sqs.send_message(QueueUrl="https://sqs.eu-west-1.amazonaws.com/123/refunds", MessageBody=order_id)


@bp.route("/users/<int:user_id>", methods=["GET", "DELETE"])
def admin_user(user_id):
    stub = inventory_pb2_grpc.InventoryStub(grpc.insecure_channel("inventory:50051"))
    cache = redis.Redis(host="cache", port=6379)
    return stub, cache


app.include_router(orders, prefix="/api")
