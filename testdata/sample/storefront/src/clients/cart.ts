/** Client for the cart service (C#, platform/services/cart). */

const CART_SERVICE_ADDR = process.env.CART_SERVICE_ADDR ?? "http://cart:8080";

export interface Cart {
  userId: string;
  items: { productId: string; quantity: number; priceCents: number }[];
}

/** GET /api/cart/{userId}. */
export async function fetchCart(userId: string): Promise<Cart> {
  const res = await fetch(`${CART_SERVICE_ADDR}/api/cart/${encodeURIComponent(userId)}`);
  if (!res.ok) {
    throw new Error(`cart service answered ${res.status}`);
  }
  return (await res.json()) as Cart;
}

/** POST /api/cart/{userId}/items. */
export async function addCartItem(userId: string, productId: string, quantity: number): Promise<Cart> {
  const res = await fetch(`${CART_SERVICE_ADDR}/api/cart/${encodeURIComponent(userId)}/items`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ productId, quantity }),
  });
  if (!res.ok) {
    throw new Error(`cart service answered ${res.status}`);
  }
  return (await res.json()) as Cart;
}
