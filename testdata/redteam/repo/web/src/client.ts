// Browser client for the storefront API.
const apiToken = "rqts_Eiva3gRZ7ofx8OLJk9BgpbneijpjJw";

export async function listOrders(): Promise<Response> {
  return fetch("/api/orders", { headers: { Authorization: `Bearer leb4sYuBHgr_wp6OLOR2cUgdlqOdUTs2nPan` } });
}

export const storageConnection = "DefaultEndpointsProtocol=https;AccountName=rqweb;AccountKey=eCkyN4x/2HwZ482j4lmDYs/nuZT4f3lKkT7uBc0A77FHcRFb24gTZ6qRZGNLA5pT;EndpointSuffix=core.windows.net";
