"""Contributions keep the day they arrived, not the microsecond (issue 17: a fine timestamp links a contribution
to the request that carried it in any other record)."""

from django.db import migrations, models


# The schema changes after the data one are in 0007: PostgreSQL refuses to alter a table with updates pending in
# the same transaction.
def coarsen(apps, schema_editor):
    Contribution = apps.get_model("anonymizer", "PreferenceContribution")
    for contribution in Contribution.objects.all().only("id", "created_at"):
        Contribution.objects.filter(id=contribution.id).update(received_on=contribution.created_at.date())


class Migration(migrations.Migration):
    dependencies = [("anonymizer", "0005_campaign_ranges")]

    operations = [
        migrations.AddField(model_name="preferencecontribution", name="received_on",
                            field=models.DateField(null=True, help_text="The day (UTC) it arrived; never a finer "
                                                                        "time.")),
        migrations.RunPython(coarsen, migrations.RunPython.noop),
    ]
