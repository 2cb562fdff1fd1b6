import axios, { AxiosInstance } from "axios";
import type { Order } from "./types";

/** Base URL of the orders service. */
const ORDERS_URL = process.env.ORDERS_URL ?? "http://orders:8080";

export type OrderId = string;

export enum OrderStatus {
  Pending = "pending",
  Paid = "paid",
  Shipped = "shipped",
}

export interface OrdersApi {
  get(id: OrderId): Promise<Order>;
  list(userId: string): Promise<Order[]>;
}

/** Formats an amount in cents. */
export const formatCents = (cents: number): string => `$${(cents / 100).toFixed(2)}`;

/**
 * Client for the orders service. Long on purpose so that it is chunked
 * member by member.
 */
export class OrdersClient implements OrdersApi {
  private readonly http: AxiosInstance;
  private retries = 3;

  constructor(baseURL: string = ORDERS_URL) {
    this.http = axios.create({ baseURL, timeout: 2000 });
  }

  /** Call number 1 of the orders API, with retries. */
  async operation1(id: OrderId, note: string): Promise<Order> {
    let lastError: unknown;
    for (let attempt = 0; attempt < this.retries; attempt++) {
      try {
        const res = await this.http.post<Order>(`/orders/${encodeURIComponent(id)}/operation1`, { note, attempt });
        if (res.status === 200) {
          return res.data;
        }
      } catch (err) {
        lastError = err;
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
    }
    throw new Error(`operation1 on ${id} failed: ${String(lastError)}`);
  }

  /** Call number 2 of the orders API, with retries. */
  async operation2(id: OrderId, note: string): Promise<Order> {
    let lastError: unknown;
    for (let attempt = 0; attempt < this.retries; attempt++) {
      try {
        const res = await this.http.post<Order>(`/orders/${encodeURIComponent(id)}/operation2`, { note, attempt });
        if (res.status === 200) {
          return res.data;
        }
      } catch (err) {
        lastError = err;
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
    }
    throw new Error(`operation2 on ${id} failed: ${String(lastError)}`);
  }

  /** Call number 3 of the orders API, with retries. */
  async operation3(id: OrderId, note: string): Promise<Order> {
    let lastError: unknown;
    for (let attempt = 0; attempt < this.retries; attempt++) {
      try {
        const res = await this.http.post<Order>(`/orders/${encodeURIComponent(id)}/operation3`, { note, attempt });
        if (res.status === 200) {
          return res.data;
        }
      } catch (err) {
        lastError = err;
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
    }
    throw new Error(`operation3 on ${id} failed: ${String(lastError)}`);
  }

  /** Call number 4 of the orders API, with retries. */
  async operation4(id: OrderId, note: string): Promise<Order> {
    let lastError: unknown;
    for (let attempt = 0; attempt < this.retries; attempt++) {
      try {
        const res = await this.http.post<Order>(`/orders/${encodeURIComponent(id)}/operation4`, { note, attempt });
        if (res.status === 200) {
          return res.data;
        }
      } catch (err) {
        lastError = err;
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
    }
    throw new Error(`operation4 on ${id} failed: ${String(lastError)}`);
  }

  async get(id: OrderId): Promise<Order> {
    return (await this.http.get<Order>(`/orders/${id}`)).data;
  }

  async list(userId: string): Promise<Order[]> {
    return (await this.http.get<Order[]>("/orders", { params: { userId } })).data;
  }
}

export function isFinal(status: OrderStatus): boolean {
  return status === OrderStatus.Shipped;
}
