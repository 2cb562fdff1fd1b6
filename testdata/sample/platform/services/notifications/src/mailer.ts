import nodemailer from "nodemailer";
import type { OrderPlaced } from "./consumer";

const transport = nodemailer.createTransport({
  host: process.env.SMTP_HOST ?? "smtp.mailgun.org",
  port: Number(process.env.SMTP_PORT ?? 587),
  auth: { user: process.env.SMTP_USER, pass: process.env.SMTP_PASSWORD },
});

function formatCents(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}

/** Mails the buyer a summary of the order. */
export async function sendOrderConfirmation(to: string, name: string, order: OrderPlaced): Promise<void> {
  const lines = order.items.map((i) => `${i.quantity} x ${i.productId}  ${formatCents(i.priceCents * i.quantity)}`);
  await transport.sendMail({
    from: "Acme Outfitters <orders@acme-outfitters.com>",
    to,
    subject: `Your order ${order.order_id} is confirmed`,
    text: [`Hi ${name},`, "", "Thanks for your order:", ...lines, "", `Total: ${formatCents(order.total_cents)}`].join("\n"),
  });
}
