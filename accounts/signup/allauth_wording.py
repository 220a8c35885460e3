"""django-allauth's own sentences that our customers read, listed so our catalogue can word them in the store's voice.

allauth's Spanish catalogue addresses the reader as "usted" and calls two-factor sign-in "doble factor"; the store
says "tú" and "verificación en dos pasos" everywhere (issue 30). Its German catalogue says "du"; the store says "Sie"
(issue 42). Its French one already says "vous", as the store does. Django reads our catalogue (LOCALE_PATHS) before
allauth's, so a msgid translated there wins, but makemessages keeps only msgids found in our sources: this module is
where they are found. bin/check-translations lists any allauth sentence that still reads otherwise.
"""

from django.utils.translation import gettext_noop

ALLAUTH_WORDING = (
    gettext_noop("You cannot remove your primary email address."),
    gettext_noop("Use your password"),
    gettext_noop("Username can not be used. Please use other username."),
    gettext_noop("You cannot add more than %d email addresses."),
    gettext_noop("Please type your current password."),
    gettext_noop("You must type the same password each time."),
    gettext_noop("You must type the same email each time."),
    gettext_noop("You cannot activate two-factor authentication until you have verified your email address."),
    gettext_noop("You cannot generate recovery codes without having two-factor authentication enabled."),
    gettext_noop("You cannot add an email address to an account protected by two-factor authentication."),
    gettext_noop("You cannot deactivate two-factor authentication."),
    gettext_noop("Please reauthenticate to safeguard your account."),
    gettext_noop("Enter Sign-In Code"),
    gettext_noop("The following email addresses are associated with your account:"),
    gettext_noop("Do you really want to remove the selected email address?"),
    gettext_noop(
        "You are receiving this email because you or someone else tried to signup for an\naccount "
        "using email address:\n\n%(email)s\n\nHowever, an account using that email address already "
        "exists.  In case you have\nforgotten about this, please use the password forgotten procedure "
        "to recover\nyour account:\n\n%(password_reset_url)s"
    ),
    gettext_noop("You are receiving this mail because the following change was made to your account:"),
    gettext_noop(
        "If you do not recognize this change then please take proper security precautions immediately. "
        "The change to your account originates from:\n\n- IP address: %(ip)s\n- Browser: "
        "%(user_agent)s\n- Date: %(timestamp)s"
    ),
    gettext_noop("Your email has been confirmed."),
    gettext_noop("Please Confirm Your Email Address"),
    gettext_noop("This mail can be safely ignored if you did not initiate this action."),
    gettext_noop("Your sign-in code is listed below. Please enter it in your open browser window."),
    gettext_noop("Your password has been changed."),
    gettext_noop("Your password reset code is listed below. Please enter it in your open browser window."),
    gettext_noop(
        "You're receiving this email because you or someone else has requested a password reset for "
        "your user account.\nIt can be safely ignored if you did not request a password reset. Click "
        "the link below to reset your password."
    ),
    gettext_noop("In case you forgot, your username is %(username)s."),
    gettext_noop("Your password has been reset."),
    gettext_noop("Your password has been set."),
    gettext_noop("If it was you, you can sign up for an account using the link below."),
    gettext_noop(
        "You are receiving this email because you, or someone else, tried to access an account with "
        "email %(email)s. However, we do not have any record of such an account in our database."
    ),
    gettext_noop(
        'Please confirm that <a href="mailto:%(email)s">%(email)s</a> is an email address for user %(user_display)s.'
    ),
    gettext_noop("Are you sure you want to sign out?"),
    gettext_noop("You cannot remove your primary email address (%(email)s)."),
    gettext_noop("Your primary email address must be verified."),
    gettext_noop(
        "We have sent you an email. If you have not received it please check your spam folder. "
        "Otherwise contact us if you do not receive it in a few minutes."
    ),
    gettext_noop("Your password is now changed."),
    gettext_noop("Your phone number is still pending verification."),
    gettext_noop("Already have an account? Then please %(link)ssign in%(end_link)s."),
    gettext_noop(
        "You currently do not have any email address set up. You should really add an email address so "
        "you can receive notifications, reset your password, etc."
    ),
    gettext_noop(
        "This part of the site requires us to verify that\nyou are who you claim to be. For this "
        "purpose, we require that you\nverify ownership of your email address. "
    ),
    gettext_noop("Verify Your Email Address"),
    gettext_noop(
        "We have sent an email to you for\nverification. Please click on the link inside that email. "
        "If you do not see the verification email in your main inbox, check your spam folder. "
        "Otherwise\ncontact us if you do not receive it within a few minutes."
    ),
    gettext_noop("Your account is protected by two-factor authentication. Please enter an authenticator code:"),
    gettext_noop("Two-Factor Authentication"),
    gettext_noop("A new set of Two-Factor Authentication recovery codes has been generated."),
    gettext_noop("Enter an authenticator code:"),
    gettext_noop("You are about to generate a new set of recovery codes for your account."),
    gettext_noop("This action will invalidate your existing codes."),
    gettext_noop("Are you sure?"),
    gettext_noop("You can store this secret and use it to reinstall your authenticator app at a later time."),
    gettext_noop(
        "To protect your account with two-factor authentication, scan the QR code below with your "
        "authenticator app. Then, input the verification code generated by the app below."
    ),
    gettext_noop("You are about to deactivate authenticator app based authentication. Are you sure?"),
    # Said with "du" in allauth's German only.
    gettext_noop("Be patient, you are sending too many requests."),
    gettext_noop("If you have not created an account yet, then please %(link)ssign up%(end_link)s first."),
    gettext_noop('<strong>Note:</strong> you can still <a href="%(email_url)s">change your email address</a>.'),
)
