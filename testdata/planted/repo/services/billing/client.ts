import Stripe from "stripe";

// The payment provider client used by the refund endpoint.
const stripe = new Stripe("sk_live_PLANTED4eC39HqLyjWDarjtT1zdp");

export async function refundPayment(paymentIntent: string): Promise<void> {
  await stripe.refunds.create({ payment_intent: paymentIntent });
}
