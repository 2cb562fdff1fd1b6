import axios from "axios";

/** HTTP client for the checkout service (Go, platform/services/checkout). */
const checkout = axios.create({
  baseURL: process.env.CHECKOUT_URL ?? "http://checkout:8080",
  timeout: 15000,
});

export interface Order {
  id: string;
  total_cents: number;
  placed_at: string;
}

/** POST /v1/checkout: turns the user's cart into an order. */
export async function placeOrder(userId: string, paymentToken: string): Promise<Order> {
  const res = await checkout.post<Order>("/v1/checkout", { user_id: userId, payment_token: paymentToken });
  return res.data;
}
