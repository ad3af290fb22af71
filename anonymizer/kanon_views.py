"""Pages of the k-anonymization workflow: configure runs for an upload, and compare the runs of a dataset."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods

from anonymizer import selectors
from anonymizer.kanon.chart import line_chart
from anonymizer.kanon.config import BUILTIN_TYPES, ROLES, TYPES, ConfigError, KanonConfig, load_config
from anonymizer.models import Job
from anonymizer.services import jobs as job_services
from anonymizer.services.kanon import KIND, MAX_RUNS, default_config


def _numbers(text: str, kind, field: str) -> list:
    try:
        values = [kind(part) for part in text.replace(";", ",").split(",") if part.strip()]
    except ValueError:
        raise ConfigError(field, f"{text!r} is not a comma-separated list of numbers.") from None
    if not values:
        raise ConfigError(field, "give at least one value.")
    return sorted(set(values))


def _config_from_form(post, columns: list[str]) -> dict:
    """Our configuration schema from the form's fields (load_config then validates it)."""
    attributes = []
    for i, name in enumerate(columns):
        entry = {"name": name, "role": post.get(f"role-{i}", "insensitive"), "type": post.get(f"type-{i}", "nominal")}
        if post.get(f"format-{i}", "").strip():
            entry["date_format"] = post[f"format-{i}"].strip()
        if post.get(f"order-{i}", "").strip():
            entry["order"] = [v.strip() for v in post[f"order-{i}"].split(",") if v.strip()]
        if post.get(f"entities-{i}", "").strip():
            entry["entities"] = [v.strip().upper() for v in post[f"entities-{i}"].split(",") if v.strip()]
        attributes.append(entry)
    config = {"attributes": attributes, "strategy": post.get("strategy", "mondrian"),
              "entity_types": post.getlist("entity_types")}
    if post.get("l_column"):
        config["l_diversity"] = {"column": post["l_column"], "l": int(post.get("l_value") or 2)}
    return config


@login_required
@require_http_methods(["GET", "POST"])
def configure(request: HttpRequest, upload_id) -> HttpResponse:
    upload = get_object_or_404(selectors.uploads_of(request.user), id=upload_id)
    columns = upload.metadata.get("header", [])
    config = default_config(upload)
    errors: list[str] = []
    form = {"k": "2, 5, 10", "lambdas": "0, 0.5, 1", "yaml": ""}
    if request.method == "POST":
        form = {"k": request.POST.get("k", ""), "lambdas": request.POST.get("lambdas", ""),
                "yaml": request.POST.get("yaml", "").strip()}
        uploaded_yaml = request.FILES.get("yaml_file")
        try:
            if uploaded_yaml is not None:
                text = uploaded_yaml.read().decode("utf-8-sig")
            elif form["yaml"]:
                text = form["yaml"]
            else:
                text = json.dumps(_config_from_form(request.POST, columns))
            config = load_config(text, columns=columns)
            ks = _numbers(form["k"], int, "k") if form["k"].strip() else [config.k]
            lambdas = _numbers(form["lambdas"], float, "lambda") if form["lambdas"].strip() else [
                config.relational_weight]
            runs = [(k, None) for k in ks] if config.strategy == "gdf" else [(k, lam) for k in ks for lam in lambdas]
            if len(runs) > MAX_RUNS:
                raise ConfigError("k", f"{len(runs)} runs requested; at most {MAX_RUNS} at once.")
            for k, lam in runs:
                run_config = config.with_parameters(k=k, relational_weight=lam)
                job_services.create_job(owner=request.user, kind=KIND, params={"config": run_config.to_dict()},
                                        inputs=[upload])
        except ConfigError as exc:
            errors = [str(error) for error in getattr(exc, "errors", [exc])]
        except UnicodeDecodeError:
            errors = ["The YAML file is not UTF-8 text."]
        else:
            messages.success(request, f"{len(runs)} anonymization run(s) queued.")
            return redirect("kanon-compare", upload_id=upload.id)
    attributes = {a.name: a for a in config.attributes} if config else {}
    rows = [{"index": i, "name": name, "attribute": attributes.get(name)} for i, name in enumerate(columns)]
    chosen_types = set(config.entity_types) if config else set(BUILTIN_TYPES)
    return render(request, "kanon/configure.html", {
        "upload": upload, "rows": rows, "roles": ROLES, "types": TYPES, "errors": errors, "form": form,
        "entity_types": [(t, t in chosen_types) for t in BUILTIN_TYPES], "config": config,
        "yaml_example": config.to_yaml() if config else "", "profiled": config is not None,
    })


@login_required
@require_GET
def compare(request: HttpRequest, upload_id) -> HttpResponse:
    """Every anonymization run of one dataset: information loss against k, one line per lambda (and GDF)."""
    upload = get_object_or_404(selectors.uploads_of(request.user), id=upload_id)
    runs = list(selectors.jobs_of(request.user).filter(kind=KIND, inputs=upload).order_by("created_at"))
    done = [job for job in runs if job.status == Job.Status.SUCCEEDED and job.result]
    relational: dict[str, list] = {}
    textual: dict[str, list] = {}
    for job in done:
        config = KanonConfig.from_dict(job.result["config"])
        name = "GDF" if config.strategy == "gdf" else f"Mondrian λ = {config.relational_weight:g}"
        relational.setdefault(name, []).append((config.k, job.result["ncp_relational_total"]))
        textual.setdefault(name, []).append((config.k, job.result["ncp_textual_total"]))
    # The SVG is built here with every text escaped, so it is safe to embed.
    charts = [mark_safe(line_chart(relational, title="Relational information loss (NCP_A)", x_label="k",
                                   y_label="NCP_A")),
              mark_safe(line_chart(textual, title="Textual information loss (NCP_X)", x_label="k",
                                   y_label="NCP_X"))] if done else []
    return render(request, "kanon/compare.html", {"upload": upload, "runs": runs, "charts": charts})
