"""Pages of the k-anonymization workflow: configure runs for an upload, and compare the runs of a dataset.

The configure page starts its runs (one per k, and per λ for Mondrian) with the one job-start helper, so every
run's configuration is validated against the upload's columns before any is queued, and a refused value is
reported with the name the page gives it (λ, not relational_weight; "date format of date")."""

from __future__ import annotations

import dataclasses
import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods
from rest_framework import serializers

from anonymizer.kanon.config import (
    BUILTIN_TYPES,
    ROLES,
    RUN_DEFAULTS,
    TYPES,
    ConfigError,
    KanonConfig,
    RunParameters,
    load_config,
)
from anonymizer.kanon.tradeoff import GDF_SERIES, RunLoss, inversion_note, tradeoff_points
from anonymizer.kanon.web import selectors, services
from anonymizer.kanon.web.jobs import MAX_RUNS, config_error_text, refuse_large_config
from anonymizer.models import Job
from anonymizer.platform import selectors as platform_selectors
from anonymizer.platform.charts import scatter_chart
from anonymizer.platform.errors import field_errors
from anonymizer.platform.forms import upload_refusals
from anonymizer.platform.jobs.describe import parameter_summary
from anonymizer.recognize.entities import ALWAYS_TYPES

# A configuration field as the page labels it (in our schema, or as rx-anon's YAML spells it);
# attributes.<column>.<key> are the cells of the columns table.
_PAGE_NAMES = {"relational_weight": "λ", "parameters.relational_weight": "λ", "k": "k", "parameters.k": "k",
               "strategy": gettext_lazy("strategy"), "parameters.strategy": gettext_lazy("strategy"),
               "entity_types": gettext_lazy("sensitive entity types"),
               "entities.native": gettext_lazy("sensitive entity types"), "l_diversity": gettext_lazy("l-diversity"),
               "attributes": gettext_lazy("columns"), "yaml_file": gettext_lazy("YAML file"), "yaml": "YAML"}
_CELL_NAMES = {"role": gettext_lazy("role"), "anonymization_type": gettext_lazy("role"), "type": gettext_lazy("type"),
               "date_format": gettext_lazy("date format"), "format": gettext_lazy("date format"),
               "order": gettext_lazy("order"), "entities": gettext_lazy("entity types"), "bias": gettext_lazy("bias"),
               "hierarchy": gettext_lazy("hierarchy")}
# What each role of the columns table means (the roles themselves are the configuration's words, kept as written).
ROLE_HELP = (
    ("direct_identifier", gettext_lazy("names a person (an id, an e-mail): used to group each person's rows, then "
                                       "removed from the released file.")),
    ("quasi_identifier", gettext_lazy("identifies a person together with others (age, gender, date): generalized "
                                      "until every class has at least k persons.")),
    ("sensitive", gettext_lazy("what must not be linked to a person (a diagnosis); l-diversity below can ask for "
                               "varied values in every class.")),
    ("insensitive", gettext_lazy("released unchanged.")),
    ("text", gettext_lazy("free text: its sensitive terms (the entity types below) are found and recoded to what the "
                          "person's class shares.")),
)


def _as_on_the_page(field: str) -> str:
    if field in _PAGE_NAMES:
        return _PAGE_NAMES[field]
    if field.startswith("l_diversity."):
        return str(_PAGE_NAMES["l_diversity"])
    if field.startswith("attributes."):
        parts = field.removeprefix("attributes.").split(".")
        # A column's name may hold dots: the cell is the first part after it that names one.
        cell = next((i for i in range(1, len(parts)) if parts[i] in _CELL_NAMES), None)
        if cell is None:
            return gettext("column %(column)s") % {"column": ".".join(parts)}
        return gettext("%(cell)s of %(column)s") % {"cell": _CELL_NAMES[parts[cell]], "column": ".".join(parts[:cell])}
    return field


def _error_lines(exc: serializers.ValidationError) -> list[str]:
    """One line per problem, the field named as on the page; a problem every run shares is said once."""
    lines: list[str] = []
    for field, problems in field_errors(exc, rename=_as_on_the_page).items():
        for problem in problems:
            # The configuration's own messages already start with the field they are about, and so does a
            # refused k ("k = 50 is more than the 12 persons in this file").
            named = field in ("config", "non_field_errors") or problem.startswith(f"{field} = ")
            line = problem if named else gettext("%(field)s: %(problem)s") % {"field": field, "problem": problem}
            if line not in lines:
                lines.append(line)
    return lines


def _numbers(text: str, kind, field: str) -> list:
    try:
        values = [kind(part) for part in text.replace(";", ",").split(",") if part.strip()]
    except ValueError:
        raise serializers.ValidationError({field: [gettext("%(text)s is not a comma-separated list of numbers.") % {
            "text": repr(text)}]}) from None
    if not values:
        raise serializers.ValidationError({field: [gettext("give at least one value.")]})
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
    config = {"attributes": attributes, "strategy": post.get("strategy", RUN_DEFAULTS.strategy),
              "entity_types": post.getlist("entity_types"),
              # Unticked boxes are not sent at all: absent means off.
              "generalize_terms": post.get("generalize_terms") == "on",
              "recode_everywhere": post.get("recode_everywhere") == "on",
              "numbered_pseudonyms": post.get("numbered_pseudonyms") == "on"}
    if post.get("l_column"):
        config["l_diversity"] = {"column": post["l_column"], "l": _integer_or_text(post.get("l_value") or "2")}
    return config


def _integer_or_text(text: str) -> int | str:
    """An integer as typed, or the text itself for the configuration's validation to refuse by name."""
    text = text.strip()
    return int(text) if text.lstrip("+-").isdigit() and len(text) <= 18 else text


def _runs(request: HttpRequest, form: dict, columns: list[str]) -> tuple[KanonConfig, list[dict]]:
    """The configuration the form (or its YAML) gives, and one job's parameters per run it asks for."""
    refused = upload_refusals(request)  # a file over the upload limit was dropped: say so, never use the form
    if refused:
        raise serializers.ValidationError(refused)
    uploaded_yaml = request.FILES.get("yaml_file")
    if uploaded_yaml is not None:
        refuse_large_config(uploaded_yaml.size, "yaml_file")  # before it is read, let alone parsed
        try:
            text = uploaded_yaml.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise serializers.ValidationError({"yaml_file": [gettext("The YAML file is not UTF-8 text.")]}) from None
    elif form["yaml"]:
        refuse_large_config(len(form["yaml"].encode("utf-8", errors="surrogatepass")), "yaml")
        text = form["yaml"]
    else:
        text = json.dumps(_config_from_form(request.POST, columns))
    try:
        config = load_config(text, columns=columns, max_bytes=settings.KANON_CONFIG_MAX_BYTES)
    except ConfigError as exc:
        raise serializers.ValidationError({"config": [config_error_text(error) for error in exc.errors]}) from exc
    ks = _numbers(form["k"], int, "k") if form["k"].strip() else [config.k]
    lambdas = (_numbers(form["lambdas"], float, "relational_weight") if form["lambdas"].strip()
               else [config.relational_weight])
    base = config.run_parameters
    runs: list[RunParameters] = ([dataclasses.replace(base, k=k) for k in ks] if config.strategy == "gdf"
                                 else [dataclasses.replace(base, k=k, relational_weight=lam)
                                       for k in ks for lam in lambdas])
    if len(runs) > MAX_RUNS:
        raise serializers.ValidationError({"k": [gettext("%(runs)d runs requested; at most %(max)d at once.") % {
            "runs": len(runs), "max": MAX_RUNS}]})
    return config, [{"config": config.with_run(run).to_dict()} for run in runs]


@login_required
@require_http_methods(["GET", "POST"])
def configure(request: HttpRequest, upload_id) -> HttpResponse:
    upload = selectors.upload_of(request.user, upload_id)
    columns = upload.metadata.get("header", [])
    config = selectors.default_config(upload)
    errors: list[str] = []
    form = {"k": "2, 5, 10", "lambdas": "0, 0.5, 1", "yaml": ""}
    if request.method == "POST":
        form = {"k": request.POST.get("k", ""), "lambdas": request.POST.get("lambdas", ""),
                "yaml": request.POST.get("yaml", "").strip()}
        try:
            config, runs = _runs(request, form, columns)
            services.start_runs(owner=request.user, upload=upload, runs=runs)
        except serializers.ValidationError as exc:
            errors = _error_lines(exc)
        else:
            messages.success(request, ngettext(
                "%(count)d anonymization run submitted; its status is in the table.",
                "%(count)d anonymization runs submitted; their status is in the table.", len(runs)) % {
                "count": len(runs)})
            return redirect("kanon-compare", upload_id=upload.id)
    attributes = {a.name: a for a in config.attributes} if config else {}
    rows = [{"index": i, "name": name, "attribute": attributes.get(name)} for i, name in enumerate(columns)]
    chosen_types = set(config.entity_types) if config else set(BUILTIN_TYPES)
    return render(request, "kanon/configure.html", {
        "upload": upload, "rows": rows, "roles": ROLES, "role_help": ROLE_HELP, "types": TYPES, "errors": errors,
        "form": form,
        # ALWAYS_TYPES (CODE) are recognized whatever is ticked: shown ticked and fixed
        "entity_types": [(t, t in chosen_types or t in ALWAYS_TYPES, t in ALWAYS_TYPES) for t in BUILTIN_TYPES],
        "config": config,
        "yaml_example": config.to_yaml() if config else "", "profiled": config is not None, "max_runs": MAX_RUNS,
    })


def run_loss(job: Job) -> RunLoss:
    """A finished run's parameters and information loss, from its report."""
    config = KanonConfig.from_dict(job.result["config"])
    gdf = config.strategy == "gdf"
    return RunLoss(k=config.k, strategy=config.strategy, relational_weight=None if gdf else config.relational_weight,
                   ncp_relational=job.result["ncp_relational_total"], ncp_textual=job.result["ncp_textual_total"],
                   persons=int(job.result.get("persons") or 0), classes=int(job.result.get("classes") or 0),
                   cuts=sum((job.result.get("splits") or {}).values()))


@login_required
@require_GET
def compare(request: HttpRequest, upload_id) -> HttpResponse:
    """Every anonymization run of one dataset: what each lost of the columns (NCP_A) against what it lost of the
    texts (NCP_X), a point per run labelled by k and λ, with a note when λ did not trade as expected here."""
    upload = selectors.upload_of(request.user, upload_id)
    runs = selectors.runs_of(request.user, upload)
    losses = [run_loss(job) for job in runs if job.status == Job.Status.SUCCEEDED and job.result]
    points = tradeoff_points(losses)
    # The SVG is built here with every text escaped, so it is safe to embed.
    chart = mark_safe(scatter_chart(
        points, title=gettext("What each run lost: columns against texts"),
        x_label=gettext("NCP_A (relational columns)"), y_label=gettext("NCP_X (texts)"),
        corner_note=gettext("lower left loses less"), shapes={GDF_SERIES: "square"},
        joined={series for _, series, _, _ in points if series != GDF_SERIES})) if points else ""
    # The rows with where each queued or running run stands; the page polls them (static/js/job-list.js).
    rows = [(job, standing, parameter_summary(job.kind, job.params))
            for job, standing in platform_selectors.standings_of(runs)]
    return render(request, "kanon/compare.html", {"upload": upload, "runs": runs, "rows": rows, "chart": chart,
                                                  "lambda_note": inversion_note(losses)})
