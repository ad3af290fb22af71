# Issue 43: the quality-check defaults that meet the goals of bench/bench_crowd_quality.py (no data changes).

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('anonymizer', '0011_crowd_link_limits'),
    ]

    operations = [
        migrations.AlterField(
            model_name='campaign',
            name='checks_within',
            field=models.PositiveIntegerField(default=5, help_text='Every participant meets the first check item of each kind within their first this many items.', validators=[django.core.validators.MinValueValidator(2), django.core.validators.MaxValueValidator(1000)]),
        ),
        migrations.AlterField(
            model_name='campaign',
            name='min_gold_accuracy',
            field=models.FloatField(default=0.5, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)]),
        ),
        migrations.AlterField(
            model_name='campaign',
            name='min_gold_answers',
            field=models.PositiveIntegerField(default=6, validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(1000)]),
        ),
    ]
