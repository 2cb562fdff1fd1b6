import { Router } from "express";
import { addCartItem, fetchCart } from "../clients/cart";
import { currentUserId } from "../session";

export const cartRouter = Router();

cartRouter.get("/", async (req, res, next) => {
  const userId = currentUserId(req);
  if (!userId) {
    res.status(401).json({ error: "sign in first" });
    return;
  }
  try {
    res.json(await fetchCart(userId));
  } catch (err) {
    next(err);
  }
});

cartRouter.post("/items", async (req, res, next) => {
  const userId = currentUserId(req);
  if (!userId) {
    res.status(401).json({ error: "sign in first" });
    return;
  }
  try {
    res.json(await addCartItem(userId, req.body.productId, Number(req.body.quantity ?? 1)));
  } catch (err) {
    next(err);
  }
});
