from django.apps import AppConfig


class AnonymizerConfig(AppConfig):
    name = "anonymizer"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The platform's signal handlers and Celery task, and every capability's job kinds (they register
        # themselves with the platform's registry when imported).
        # The interface's catalogs, compiled again only when a source changed: every process (web, worker, a
        # test session) reads whole, current catalogs without a separate step.
        from django.conf import settings

        from anonymizer.crowd.web import jobs as crowd_jobs  # noqa: F401
        from anonymizer.kanon.web import jobs as kanon_jobs  # noqa: F401
        from anonymizer.location.web import jobs as location_jobs  # noqa: F401
        from anonymizer.platform import signals  # noqa: F401
        from anonymizer.platform.i18n import compile_catalogs
        from anonymizer.platform.jobs import tasks  # noqa: F401
        from anonymizer.preferences.web import jobs as preference_jobs  # noqa: F401
        from anonymizer.tabular.web import jobs as tabular_jobs  # noqa: F401
        from anonymizer.temporal.web import jobs as temporal_jobs  # noqa: F401

        compile_catalogs(settings.LOCALE_SOURCE_DIR, settings.LOCALE_PATHS[0])
        # The cores' sentences (anonymizer.texts.gettext) in the request's language.
        from django.utils.translation import get_language, gettext, ngettext

        from anonymizer import texts

        texts.use_translations(gettext, ngettext, get_language)
