"""The composer: authored skills compiled into budgeted documents over live knowledge."""
