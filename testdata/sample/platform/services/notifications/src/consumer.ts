import { Kafka, logLevel } from "kafkajs";
import { fetchProfile } from "./accounts";
import { sendOrderConfirmation } from "./mailer";

/** Payload of an orders.placed message, as published by checkout. */
export interface OrderPlaced {
  order_id: string;
  user_id: string;
  items: { productId: string; quantity: number; priceCents: number }[];
  total_cents: number;
  placed_at: string;
}

const kafka = new Kafka({
  clientId: "notifications",
  brokers: (process.env.KAFKA_BROKERS ?? "kafka:9092").split(","),
  logLevel: logLevel.WARN,
});

const consumer = kafka.consumer({ groupId: "notifications-order-mail" });

/** Handles one placed order: look up the buyer and mail a confirmation. */
export async function handleOrderPlaced(event: OrderPlaced): Promise<void> {
  const profile = await fetchProfile(event.user_id);
  await sendOrderConfirmation(profile.email, profile.display_name, event);
}

async function main(): Promise<void> {
  await consumer.connect();
  await consumer.subscribe({ topic: "orders.placed", fromBeginning: false });
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (!message.value) {
        return;
      }
      const event = JSON.parse(message.value.toString()) as OrderPlaced;
      try {
        await handleOrderPlaced(event);
      } catch (err) {
        console.error(`order mail for ${event.order_id} failed`, err);
        throw err; // let kafkajs retry the message
      }
    },
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
