"""What every capability shares, once: errors and field-error reports, the job machinery (registry, runner,
tasks), uploads and downloads, model artifacts, rate limits, health, charts, and the accounts, uploads and jobs
pages and API. Nothing here imports a capability; capabilities register into it (job kinds)."""
