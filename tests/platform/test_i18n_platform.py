"""The platform's pages, API errors and CSV errors in Japanese (issue 49): a Japanese browser reads Japanese, the
API's machine-readable parts (codes, field names, statuses, row numbers) stay the same in both languages, and
English stays the default."""

from __future__ import annotations

import io
import pickle
import uuid
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from rest_framework.test import APIClient

from anonymizer.models import Job, UserSettings
from anonymizer.platform.i18n import user_message
from anonymizer.platform.jobs import runner
from anonymizer.platform.jobs import services as job_services
from anonymizer.platform.selectors import job_standing
from anonymizer.platform.uploads import create_csv_upload
from anonymizer.tabular import CsvFormatError
from anonymizer.tabular.csvcheck import check_csv
from tests.helpers import csv_upload

JA = "ja-JP,ja;q=0.9"
# Row 3 has one value too many: the error every malformed CSV upload meets first.
BAD_CSV = b"id,text\n1,hello\n2,a,b\n"


def csv_upload_bytes(content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile("bad.csv", content, content_type="text/csv")


def page(response) -> str:
    return response.content.decode()


@pytest.mark.django_db
def test_login_and_signup_pages_in_japanese():
    client = Client(HTTP_ACCEPT_LANGUAGE=JA)
    login = page(client.get(reverse("login")))
    assert "<h1>ログイン</h1>" in login and "アカウントをお持ちでない方は" in login
    assert "ユーザー名" in login  # Django's own form labels, from its catalog
    assert "No account yet?" not in login
    signup = page(client.get(reverse("signup")))
    assert "<h1>新規登録</h1>" in signup and "アカウントを作成" in signup and "Create account" not in signup
    # The same pages stay English for an English browser.
    assert "No account yet?" in page(Client(HTTP_ACCEPT_LANGUAGE="en").get(reverse("login")))


@pytest.mark.django_db
def test_account_pages_in_japanese(user):
    client = Client(HTTP_ACCEPT_LANGUAGE=JA)
    client.force_login(user)
    create_csv_upload(owner=user, uploaded=csv_upload())
    account = page(client.get(reverse("account")))
    assert "アカウント：alice" in account and "所有しているもの" in account and "閲覧できる人" in account
    assert "アップロードしたファイル1件" in account  # Holdings.lines, counted in Japanese
    assert "What you own" not in account
    delete = page(client.get(reverse("account-delete")))
    assert "アカウントaliceを削除しますか？" in delete and "アカウントと所有するものをすべて削除" in delete
    wrong = client.post(reverse("account-delete"), {"password": "not it"})
    assert wrong.status_code == 400 and "パスワードが正しくありません。何も削除されていません。" in page(wrong)
    token = page(client.get(reverse("api-token")))
    assert "スクリプトは次のヘッダーで認証します" in token and "Authorization: Token " in token  # code stays code


@pytest.mark.django_db
def test_the_404_page_in_japanese(user):
    client = Client(HTTP_ACCEPT_LANGUAGE=JA)
    client.force_login(user)
    response = client.get(reverse("job-detail", args=[uuid.uuid4()]))
    assert response.status_code == 404
    assert "ページが見つかりません" in page(response) and "エラー404" in page(response)
    assert "Nothing here" not in page(response)


@pytest.mark.django_db
def test_the_jobs_list_in_japanese_keeps_the_status_values(user):
    upload = create_csv_upload(owner=user, uploaded=csv_upload())
    job = job_services.create_job(owner=user, kind="profile_csv", params={}, inputs=[upload])
    client = Client(HTTP_ACCEPT_LANGUAGE=JA)
    client.force_login(user)
    shown = page(client.get(reverse("job-list")))
    assert "<h1>ジョブ一覧</h1>" in shown and "<th>状態</th>" in shown
    assert "status-queued live-status\">待機中</span>" in shown  # the label translated, the CSS class not
    assert f'data-job-id="{job.id}" data-status="queued"' in shown
    assert "待ち行列の1番目、先に0件" in shown  # where it stands, worded in Japanese
    detail = page(client.get(reverse("job-detail", args=[job.id])))
    assert "待ち行列の1番目です。" in detail and "CSVファイルの列を調べる" in detail
    english = Client(HTTP_ACCEPT_LANGUAGE="en")
    english.force_login(user)
    assert "status-queued live-status\">queued</span>" in page(english.get(reverse("job-list")))
    # The poll the page's script reads answers in the request's language too; the status value stays.
    polled = english.get(reverse("api-job-detail", args=[job.id]), HTTP_ACCEPT_LANGUAGE=JA).json()
    assert polled["status"] == "queued" and polled["standing"]["text"].startswith("待ち行列の1番目です")


@pytest.mark.django_db
def test_api_errors_keep_their_code_and_translate_their_detail(user):
    missing = Client(HTTP_ACCEPT_LANGUAGE=JA).get("/api/v1/no-such-endpoint/")
    assert missing.status_code == 404
    assert missing.json() == {"code": "not_found", "detail": "該当するAPIエンドポイントはありません。"}
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get("/api/v1/no-such-endpoint/")
    assert english.json() == {"code": "not_found", "detail": "No such API endpoint."}
    # Refused before any middleware that picks the language ran: the browser's language still decides.
    too_long = Client(HTTP_ACCEPT_LANGUAGE=JA).get("/api/v1/jobs/?ids=" + "x" * 9000)
    assert too_long.status_code == 414 and too_long.json()["code"] == "query_too_long"
    assert "クエリ文字列が" in too_long.json()["detail"]
    # DRF's own texts come from its Japanese catalog; its code is added beside them.
    anonymous = Client(HTTP_ACCEPT_LANGUAGE=JA).get(reverse("api-job-list"))
    assert anonymous.status_code in (401, 403)
    assert anonymous.json() == {"detail": "認証情報が含まれていません。", "code": "not_authenticated"}
    # Field errors: the field names stay English keys, their texts are Japanese.
    api = APIClient(HTTP_ACCEPT_LANGUAGE=JA)
    api.force_authenticate(user)
    refused = api.post(reverse("api-job-list"), {}, format="json")
    assert refused.status_code == 400 and refused.json()["kind"] == ["この項目は必須です。"]
    assert "code" not in refused.json()


@pytest.mark.django_db
def test_a_csv_row_error_on_upload_in_japanese(user):
    client = Client(HTTP_ACCEPT_LANGUAGE=JA)
    client.force_login(user)
    shown = page(client.post(reverse("profile-new"), {
        "file": csv_upload_bytes(BAD_CSV), "sample_rows": 10}))
    assert "3行目：この行の値は3個ですが、ヘッダーの列は2個です。" in shown
    assert "the row has" not in shown
    api = APIClient(HTTP_ACCEPT_LANGUAGE=JA)
    api.force_authenticate(user)
    refused = api.post(reverse("api-upload-list"), {"file": csv_upload_bytes(BAD_CSV)}, format="multipart")
    assert refused.status_code == 400
    [error] = refused.json()["file"]
    assert error["row"] == 3 and error["column"] is None
    assert error["message"].startswith("3行目：この行の値は3個ですが")
    english = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    english.force_authenticate(user)
    [error] = english.post(reverse("api-upload-list"), {"file": csv_upload_bytes(BAD_CSV)},
                           format="multipart").json()["file"]
    assert error["message"].startswith("Row 3: the row has 3 fields, but the header has 2 columns.")


def test_a_csv_error_stays_english_as_text_and_translates_in_the_shell():
    with pytest.raises(CsvFormatError) as caught:
        check_csv(io.BytesIO(b"id,,name\n1,2,3\n"), max_bytes=None)
    error = caught.value
    assert str(error) == "Row 1, column 2: the column has no name; every column needs a name in the header row."
    with translation.override("ja"):
        assert user_message(error) == ("1行目、2列目：この列には名前がありません。"
                                       "ヘッダー行ではすべての列に名前が必要です。")
    # A worker's error crosses processes pickled (Celery): its values and place survive.
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.row, copy.column) == (str(error), 1, 2)
    with translation.override("ja"):
        assert user_message(copy) == user_message(error)
    # Not UTF-8 (a Shift_JIS file, say): where and why, in Japanese.
    with pytest.raises(CsvFormatError) as caught:
        check_csv(io.BytesIO("id,text\n1,渋谷\n".encode("shift_jis")), max_bytes=None)
    with translation.override("ja"):
        assert "UTF-8として正しくありません" in user_message(caught.value)
    assert "is not valid UTF-8" in str(caught.value)


@pytest.mark.django_db
def test_a_worker_writes_a_jobs_failure_in_its_owners_language(user, other_user):
    UserSettings.objects.update_or_create(user=user, defaults={"language": "ja"})
    stale = timezone.now() - timedelta(seconds=settings.JOB_STALE_AFTER_SECONDS + 60)
    jobs = {}
    for owner in (user, other_user):
        upload = create_csv_upload(owner=owner, uploaded=csv_upload())
        job = job_services.create_job(owner=owner, kind="profile_csv", params={}, inputs=[upload])
        Job.objects.filter(id=job.id).update(status=Job.Status.RUNNING, started_at=stale, heartbeat_at=stale,
                                             worker="w1")
        jobs[owner.username] = job
    assert runner.fail_stale_jobs() == 2
    japanese, english = (Job.objects.get(id=jobs[name].id) for name in ("alice", "mallory"))
    assert japanese.error.startswith("このジョブを実行していたワーカー(w1)が応答しなくなりました。")
    assert english.error.startswith("The worker running this job (w1) stopped responding")
    with translation.override("ja"):
        assert "に失敗しました(開始から" in job_standing(japanese).text
