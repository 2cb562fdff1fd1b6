"""Print jobs: Celery tasks and the sends between them."""
import os

from celery import Celery, chain, shared_task
from celery import current_app

from printshop.layout import impose
from . import mailer
from .proofs import make_proof

app = Celery("printshop", broker=os.getenv("BROKER_URL", "redis://queue:6379/0"))
JOB_NAME = "printshop.jobs.rasterize"


@app.task(name="printshop.jobs.rasterize", acks_late=True)
def rasterize(job_id):
    return job_id


@app.task(bind=True, max_retries=5, name="printshop.jobs.plate")
def plate(self, job_id):
    impose.delay(job_id)
    mailer.notify_customer.apply_async(args=[job_id], countdown=30)
    return chain(make_proof.s(job_id), rasterize.si(job_id))()


@shared_task
def cleanup():
    plate.delay(0)
    current_app.send_task(JOB_NAME, args=[0])
    app.send_task("printshop.jobs.archive", kwargs={"days": 30}, queue="slow")
    app.send_task(os.environ["CLEANUP_TASK"])


@app.route("/not-a-task")
def view():
    return None


def local_only(pool, rows):
    return pool.apply_async(len, (rows,))
