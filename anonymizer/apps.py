from django.apps import AppConfig


class AnonymizerConfig(AppConfig):
    name = "anonymizer"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the job kinds and the worker signal handlers.
        from anonymizer import signals, tasks  # noqa: F401
        from anonymizer.services import (  # noqa: F401
            crowd_learning,
            kanon,
            location,
            preference_experiment,
            preferences,
            profiling,
            temporal,
            temporal_dataset,
        )
