"""The task results admin at scale: found by the task's name (the end of its path), the start of its path, its id."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from django_tasks_db.models import DBTaskResult, get_date_max

pytestmark = pytest.mark.django_db

URL = "/admin/django_tasks_database/dbtaskresult/"


def result(path: str) -> DBTaskResult:
    now = timezone.now()
    return DBTaskResult.objects.create(
        task_path=path,
        args_kwargs={"args": [], "kwargs": {}},
        status="FAILED",
        queue_name="default",
        backend_name="default",
        priority=0,
        enqueued_at=now,
        run_after=get_date_max(),
        worker_ids=[],
    )


def test_tasks_are_found_by_name_path_or_id(client):
    client.force_login(get_user_model().objects.create_superuser("staff", "staff@example.org", "Staff#12345"))
    email = result("storefront.tasks.send_email")
    sync = result("domains.orders.tasks.sync_orders")
    batch = result("domains.orders.tasks.sync_orders_batch")

    def found(term: str) -> set[str]:
        page = client.get(URL, {"q": term}).content.decode()
        return {name for name in ("send_email", "sync_orders", "sync_orders_batch") if f">{name}<" in page}

    assert found("send_email") == {"send_email"}
    assert found("orders_batch") == {"sync_orders_batch"}  # the end of the name
    assert found("domains.orders") == {"sync_orders", "sync_orders_batch"}  # the start of the path
    assert found(str(sync.id)) == {"sync_orders"}
    assert found("nothing_like_it") == set()
    assert len({email.id, sync.id, batch.id}) == 3
