import cookieParser from "cookie-parser";
import express from "express";
import { accountRouter } from "./routes/account";
import { cartRouter } from "./routes/cart";
import { checkoutRouter } from "./routes/checkout";
import { productsRouter } from "./routes/products";

const app = express();
app.use(express.json());
app.use(cookieParser());

app.use("/api/products", productsRouter);
app.use("/api/cart", cartRouter);
app.use("/api/checkout", checkoutRouter);
app.use("/api", accountRouter);

app.get("/healthz", (_req, res) => {
  res.json({ status: "ok" });
});

const port = Number(process.env.PORT ?? 3000);
app.listen(port, () => {
  console.log(`storefront listening on :${port}`);
});
