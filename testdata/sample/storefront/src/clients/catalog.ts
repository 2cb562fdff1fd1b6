import axios from "axios";

/** HTTP client for the catalog service (Python, platform/services/catalog). */
const catalog = axios.create({
  baseURL: process.env.CATALOG_URL ?? "http://catalog:8000",
  timeout: 2000,
});

export interface Product {
  id: string;
  name: string;
  price_cents: number;
  stock: number;
}

/** GET /products on the catalog service. */
export async function listProducts(page = 0): Promise<Product[]> {
  const res = await catalog.get<Product[]>("/products", { params: { limit: 50, offset: page * 50 } });
  return res.data;
}

/** GET /products/{product_id} on the catalog service. */
export async function getProduct(productId: string): Promise<Product> {
  const res = await catalog.get<Product>(`/products/${encodeURIComponent(productId)}`);
  return res.data;
}
