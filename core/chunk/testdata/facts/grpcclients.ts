import * as grpc from "@grpc/grpc-js";
import { FaresClient } from "./gen/fares_grpc_pb";
import { QueryClient } from "@tanstack/react-query";

// fares dials the fares service.
export const fares = new FaresClient(process.env.FARES_ADDR ?? "fares:50051", grpc.credentials.createInsecure());

// A React data cache beside it is no gRPC client, though its name ends in
// Client too: it is imported from elsewhere.
export const cache = new QueryClient({ defaultOptions: { queries: { retry: false } } });
