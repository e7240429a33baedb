# Hawk Notes, an app on handoffd (docs/HAWKNOTES.md): the activity types it continues, and how
# handoffd starts it to continue one when none of its windows runs. Installed in
# /usr/share/handoffd/apps (docs/APPS.md).
[Handoff App]
Name=Hawk Notes
Exec=hawknotes --background

[Activity org.hawknotes.characterDetail]
Payload=Character

[Activity org.hawknotes.bookDetail]
RequiredKeys=bookID

[Activity org.hawknotes.draftNote]
RequiredKeys=bookID;draftText
