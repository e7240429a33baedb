# Reading List's declaration (docs/APPS.md): install in ~/.local/share/handoffd/apps or
# /usr/share/handoffd/apps, with reading_list.py installed as /usr/local/bin/reading-list.
[Handoff App]
Name=Reading List
Exec=/usr/local/bin/reading-list --idle 30

[Activity org.example.readinglist.item]
RequiredKeys=url
Search=false
