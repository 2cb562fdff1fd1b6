import { Router } from "express";
import { placeOrder } from "../clients/checkout";
import { currentUserId } from "../session";

export const checkoutRouter = Router();

checkoutRouter.post("/", async (req, res, next) => {
  const userId = currentUserId(req);
  if (!userId) {
    res.status(401).json({ error: "sign in first" });
    return;
  }
  try {
    res.status(201).json(await placeOrder(userId, req.body.paymentToken));
  } catch (err) {
    next(err);
  }
});
