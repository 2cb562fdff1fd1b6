import axios from "axios";
import { Controller, Get, Post } from "@nestjs/common";
import { Kafka } from "kafkajs";
import { Pool } from "pg";
import { createClient } from "redis";
import amqp from "amqplib";

const kafka = new Kafka({ brokers: ["kafka:9092"] });
const producer = kafka.producer();
const consumer = kafka.consumer({ groupId: "shipping" });
const pool = new Pool({ connectionString: process.env.SHIPPING_DB_URL });
const cache = createClient({ url: "redis://cache:6379" });

@Controller("shipments")
export class ShipmentsController {
  @Get(":id")
  async find(id: string) {
    const res = await axios.get(`${process.env.CARRIER_URL}/tracking/${id}`);
    return res.data;
  }

  @Post()
  async create(body: unknown) {
    await axios({ method: "post", url: "http://labels:8080/labels", data: body });
    await producer.send({ topic: "shipments.created", messages: [{ value: JSON.stringify(body) }] });
  }
}

export async function listen(): Promise<void> {
  await consumer.subscribe({ topics: ["orders.paid", "orders.cancelled"] });
  const ch = await (await amqp.connect("amqp://mq")).createChannel();
  ch.sendToQueue("labels.print", Buffer.from("x"));
  ch.consume("labels.printed", () => undefined);
  const headers = new Map<string, string>();
  headers.get("not-an-http-call");
}
