import { InjectQueue, Processor, WorkerHost } from "@nestjs/bullmq";
import { Injectable } from "@nestjs/common";
import { Job, Queue } from "bullmq";

@Processor("invoices")
export class InvoiceProcessor extends WorkerHost {
  async process(job: Job): Promise<void> {
    return;
  }
}

@Injectable()
export class BillingService {
  constructor(@InjectQueue("invoices") private readonly invoices: Queue) {}

  async issue(id: string) {
    await this.invoices.add("issue", { id });
  }
}
